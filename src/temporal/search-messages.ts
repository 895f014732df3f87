/**
 * Id and input of the semantic graph workflow (src/workflows/semantic-graph.ts): one per drive at a time,
 * `semantic-graph-<drive_id>`, which (re)builds the drive's graph index (docs/decisions/search.md, "A graph index
 * for large drives"). The Temporal UI shows which drive's graph is being built and how long builds take.
 */
export interface SemanticGraphInput {
  driveId: string;
  /** Waited before the build (SEARCH_GRAPH_DELAY_S): writes that arrive meanwhile are in it, at no extra build. */
  delayMs: number;
}

export interface SemanticGraphResult {
  /** Passages the graph holds (0: the drive is under the threshold and has no graph). */
  passages: number;
}

export const semanticGraphWorkflowId = (driveId: string) => `semantic-graph-${driveId}`;
