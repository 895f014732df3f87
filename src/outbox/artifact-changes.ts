/**
 * The one place that hears about every change to what an artifact looks like from outside
 * (bytes, path, labels, metadata, trash state, purge). The search engine's immediate patches
 * subscribe here; everything that must not be lost goes through the outbox instead, queued in the
 * change's own transaction (src/outbox/outbox.ts, using changeKindOf below). Listeners run after
 * the change has committed, once per artifact event, in commit order; a failing listener is logged
 * by the caller and never undoes the change.
 */
export interface ArtifactChange {
  driveId: string;
  artId: string;
  /** The event action, e.g. `artifact.created`, `artifact.renamed`, `artifact.purged`. */
  action: string;
  /** The event that recorded the change; null when the change left no event (a purged drive takes its log with it). */
  eventId: string | null;
  metadata: Record<string, unknown>;
}

const extensionOf = (path: string) => {
  const base = path.slice(path.lastIndexOf('/') + 1);
  return base.includes('.') ? base.slice(base.lastIndexOf('.') + 1).toLowerCase() : '';
};

/**
 * What an artifact event changed, for whoever derives data from artifacts (the outbox topics):
 * the content (a new version, a copy, a restore, or a rename to another extension, which changes the
 * file type and the extraction), only the record (rename, move, labels, metadata), or the artifact
 * left (trash, purge). Null for events that change nothing derived (docs/decisions.md, Indexing).
 */
export function changeKindOf(
  action: string,
  metadata: Record<string, unknown>,
): 'content' | 'record' | 'remove' | null {
  switch (action) {
    case 'artifact.created':
    case 'artifact.updated':
    case 'artifact.copied':
    case 'artifact.restored':
      return 'content';
    case 'artifact.renamed':
      return typeof metadata.from === 'string' &&
        extensionOf(metadata.from) !== extensionOf(String(metadata.to ?? metadata.path))
        ? 'content'
        : 'record';
    case 'artifact.metadata_updated':
      return 'record';
    case 'artifact.deleted':
    case 'artifact.purged':
      return 'remove';
    default:
      return null;
  }
}

export type ArtifactChangeListener = (change: ArtifactChange) => void | Promise<void>;

const listeners = new Set<ArtifactChangeListener>();

/** Subscribes; returns the unsubscribe function. */
export function onArtifactChanged(listener: ArtifactChangeListener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Calls every listener for each change; collects listener failures instead of throwing them. */
export async function publishArtifactChanges(changes: ArtifactChange[]): Promise<unknown[]> {
  const failures: unknown[] = [];
  for (const change of changes) {
    for (const listener of listeners) {
      try {
        await listener(change);
      } catch (err) {
        failures.push(err);
      }
    }
  }
  return failures;
}
