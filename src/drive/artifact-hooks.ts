/**
 * The one place that hears about every change to what an artifact looks like from outside
 * (bytes, path, labels, metadata, trash state, purge). Search indexing subscribes here.
 * Listeners run after the change has committed, once per artifact event, in commit order;
 * a failing listener is logged by the caller and never undoes the change.
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
