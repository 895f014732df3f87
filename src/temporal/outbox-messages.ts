/**
 * Id and input of the outbox drainer workflows (src/workflows/outbox-drainer.ts): one per topic and
 * shard, `outbox-<topic>-<shard>`, long-lived (continue-as-new). Each runs one drain activity at a
 * time, so the Temporal UI shows who drains what, and Temporal costs a few tasks per run, not per write.
 */
export interface DrainInput {
  /** An OutboxTopic (src/outbox/outbox.ts): workflow code may not import it. */
  topic: string;
  shard: { index: number; count: number };
  /** Requests claimed at once (coalesced per artifact). */
  batchSize: number;
  /** How long one drain activity runs before it returns and the workflow starts the next. */
  runForMs: number;
  /** Longest idle sleep without a NOTIFY (backoffs coming due are seen within it). */
  idlePollMs: number;
  /** After waking with no backlog, how long to let more commits join the batch. */
  gatherMs: number;
}

export interface DrainerWorkflowInput extends DrainInput {
  /** Runs recorded in this execution so far (history stays small; continue-as-new after maxRuns). */
  runs?: number;
}

export function outboxDrainerWorkflowId(topic: string, shard: number): string {
  return `outbox-${topic}-${shard}`;
}
