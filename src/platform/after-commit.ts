/**
 * The one place that hears about every change to what an artifact looks like from outside (bytes, path, labels,
 * metadata, trash state, purge), after it committed. Each process's composition root builds one hub (createContext)
 * and subscribes to it: the API (src/server/app.ts) and the worker (src/worker.ts) bind the search engine's immediate
 * patches; the write transaction publishes (src/files/write-transaction.ts). Listeners run once per artifact event, in
 * commit order; a failing listener is logged by the caller and never undoes the change. A value handed down in the
 * AppContext, not module state, so two apps in one test process never hear each other.
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

/** The after-commit listeners of one process. */
export class ArtifactChangeHub {
  private readonly listeners = new Set<ArtifactChangeListener>();

  /** Subscribes; returns the unsubscribe function. */
  subscribe(listener: ArtifactChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Calls every listener for each change; collects listener failures instead of throwing them. */
  async publish(changes: ArtifactChange[]): Promise<unknown[]> {
    const failures: unknown[] = [];
    for (const change of changes) {
      for (const listener of this.listeners) {
        try {
          await listener(change);
        } catch (err) {
          failures.push(err);
        }
      }
    }
    return failures;
  }
}
