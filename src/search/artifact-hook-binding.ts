import type { ArtifactChange, ArtifactChangeHub } from '../platform/after-commit.js';
import { EventAction } from '../files/events.js';
import type { SearchEngine } from './engine.js';

/**
 * What must be visible in search the moment a request answers: after commit, a rename, a label or
 * metadata change patches the engine's document and a delete or purge removes it. Everything else
 * (and a repeat of these) reaches the index through the outbox (src/search/batch-indexer.ts), which
 * the same transaction wrote, so a crash before this runs loses nothing.
 * Bound by every process that changes artifacts: the API (createApp) and the worker (purges).
 */
export async function applyImmediately(engine: SearchEngine, change: ArtifactChange): Promise<void> {
  const m = change.metadata;
  switch (change.action) {
    case EventAction.artifactRenamed:
      return engine.patchArtifact(change.driveId, change.artId, { path: String(m.to ?? m.path) });
    case EventAction.artifactMetadataUpdated:
      return engine.patchArtifact(change.driveId, change.artId, {
        labels: Array.isArray(m.labels) ? m.labels.map(String) : undefined,
        metadata: m.metadata && typeof m.metadata === 'object' ? (m.metadata as Record<string, unknown>) : undefined,
      });
    case EventAction.artifactDeleted:
    case EventAction.artifactPurged:
      return engine.removeArtifact(change.driveId, change.artId);
  }
}

/**
 * Subscribes the engine to the process's artifact changes (the hub its composition root built). A failing patch is
 * logged by the publisher; the outbox request of the same change repairs it.
 */
export function bindSearchToArtifacts(hub: ArtifactChangeHub, engine: SearchEngine): () => void {
  return hub.subscribe((change) => applyImmediately(engine, change));
}
