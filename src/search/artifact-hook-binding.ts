import { onArtifactChanged, type ArtifactChange } from '../outbox/artifact-changes.js';
import { EventAction } from '../files/events.js';
import type { SearchEngine } from './engine.js';

/**
 * What must be visible in search the moment a request answers: after commit, a rename, a label or
 * metadata change patches the engine's document and a delete or purge removes it. Everything else
 * (and a repeat of these) reaches the index through the outbox (src/search/batch-indexer.ts), which
 * the same transaction wrote, so a crash before this runs loses nothing.
 * Installed by every process that changes artifacts: the API (createApp) and the worker (purges).
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

let uninstallPrevious: (() => void) | undefined;

/**
 * Subscribes the engine to artifact changes. One binding per process: installing again replaces the
 * previous one (a test process may build several apps). A failing patch is logged by the publisher;
 * the outbox request of the same change repairs it.
 */
export function bindSearchToArtifacts(engine: SearchEngine): () => void {
  uninstallPrevious?.();
  const off = onArtifactChanged((change) => applyImmediately(engine, change));
  const uninstall = () => {
    off();
    if (uninstallPrevious === uninstall) uninstallPrevious = undefined;
  };
  uninstallPrevious = uninstall;
  return uninstall;
}
