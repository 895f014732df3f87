import type { BatchProgress, OutboxHandler, OutboxRequest } from '../outbox/outbox.js';
import type { ArtifactSource } from './artifact-source.js';
import type { PassageAwaitingVector, SearchEngine } from './engine.js';
import { embedWanted, wantedOf, type VectorDeps } from './passage-embedding.js';

/**
 * The `embed` topic's outbox handler (docs/decisions/indexing.md, "Vectors that catch up"): the search topic writes
 * passages at once, with the vectors it got within its time budget, and queues here the artifacts whose passages
 * still lack some. Per batch: the passages still without a vector, read from the engine (whatever version is stored
 * now); their vectors from the cache or the provider, written to the engine as each provider call answers (the
 * semantic leg catches up call by call); then `embedded_at` of the versions completed. A failed call fails only the
 * artifacts waiting on it, which the outbox retries with backoff; their passages stay lexically findable meanwhile.
 */
export interface VectorFillerDeps extends VectorDeps {
  engine: SearchEngine;
  source: Pick<ArtifactSource, 'markEmbedded'>;
  /** Called with the drives of each batch once its vectors are written (the semantic graphs' upkeep). */
  afterBatch?: (driveIds: string[]) => Promise<void>;
}

export const VECTOR_TOPIC = 'embed' as const;

export function createVectorFiller(deps: VectorFillerDeps): OutboxHandler {
  async function fill(batch: OutboxRequest[], progress: BatchProgress): Promise<Map<string, Error>> {
    const failures = new Map<string, Error>();
    const awaiting = await deps.engine.passagesAwaitingVectors(batch);
    const wanted = wantedOf(awaiting, (p) => ({ driveId: p.driveId, artId: p.artId, text: p.text }));
    await embedWanted(deps, wanted, {
      apply: (vectors) =>
        deps.engine.setPassageVectors(
          vectors.flatMap(({ entry, embedding }) => entry.items.map((p) => ({ ...p, embedding }))),
        ),
      failed: (owners, err) => owners.forEach((artId) => failures.set(artId, err)),
      progress: (embedded, of) => progress.heartbeat({ embedded, of }),
    });
    await deps.source.markEmbedded(completed(awaiting, failures));
    if (awaiting.length) await deps.afterBatch?.([...new Set(awaiting.map((p) => p.driveId))]);
    return failures;
  }

  return { topic: VECTOR_TOPIC, handle: fill };
}

/** The stored versions whose passages all got their vectors. */
function completed(awaiting: PassageAwaitingVector[], failures: Map<string, Error>) {
  const versions = new Map<string, { driveId: string; artId: string; versionNumber: number }>();
  for (const { driveId, artId, versionNumber } of awaiting)
    if (!failures.has(artId)) versions.set(artId, { driveId, artId, versionNumber });
  return [...versions.values()];
}
