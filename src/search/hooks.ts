import type { Client } from '@temporalio/client';
import type { IndexRequestSignal, IndexingWorkflowInput } from '../temporal/indexing-messages.js';
import { requestIndexing } from '../temporal/start.js';
import type { ArtifactPatch, SearchEngine } from './engine.js';
import { KeyedQueue } from './keyed-queue.js';

/**
 * What the artifacts domain calls after each committed change so the index follows it. Changes
 * that must be visible at once (delete, purge, rename, labels, metadata) are applied to the
 * engine directly AND sent to the artifact's indexing workflow, which serialises them with any
 * pass in flight; content changes go through the workflow only. Every call is idempotent, so an
 * outbox sweeper may repeat it.
 */
export interface IndexHooksOptions {
  temporal: Client;
  taskQueue: string;
  engine: SearchEngine;
  /** Extra workflow input (tests shorten retry pacing). */
  workflowInput?: Partial<IndexingWorkflowInput>;
  /**
   * Bound on each signal-with-start (default 5 s, as the uploads' Temporal calls): the hooks run on
   * the request path, and an unreachable Temporal would otherwise be retried for about half a minute.
   * A signal that fails is repaired by the sweeper (src/search/sweep.ts).
   */
  signalDeadlineMs?: number;
  /**
   * Send workflow signals after the caller returns (per artifact, in order) instead of awaiting them.
   * The API and worker do: a signal-with-start costs tens of milliseconds on the request path, and a
   * lost one is repaired by the sweeper like any other missed hook. Engine updates stay synchronous.
   */
  background?: { onError: (err: unknown, artId: string) => void };
  /** Pauses between retries of a failed background signal (tests shorten them). */
  retryDelaysMs?: number[];
}

export class SearchIndexHooks {
  private readonly queue?: KeyedQueue;

  constructor(private readonly opts: IndexHooksOptions) {
    if (opts.background) this.queue = new KeyedQueue(opts.background.onError);
  }

  /** Waits for the signals still queued (shutdown; tests). */
  async flush(): Promise<void> {
    await this.queue?.drain();
  }

  /** A new version was written (upload, overwrite, copy, restore, large-upload commit). */
  async contentChanged(driveId: string, artId: string, versionNumber: number): Promise<void> {
    await this.request(driveId, artId, { op: 'content', versionNumber });
  }

  /** Path, labels or metadata changed without a new version (rename, move, folder move). */
  async recordChanged(driveId: string, artId: string, patch: ArtifactPatch): Promise<void> {
    await this.opts.engine.patchArtifact(driveId, artId, patch);
    await this.request(driveId, artId, { op: 'record' });
  }

  /** Soft-deleted or purged: never returned again, from now on. */
  async removed(driveId: string, artId: string): Promise<void> {
    await this.opts.engine.removeArtifact(driveId, artId);
    await this.request(driveId, artId, { op: 'remove' });
  }

  private async request(driveId: string, artId: string, signal: IndexRequestSignal): Promise<void> {
    if (this.queue) this.queue.push(artId, () => this.signalWithRetry(driveId, artId, signal));
    else await this.signal(driveId, artId, signal);
  }

  /**
   * Background signals are retried promptly (1, 2, 4, … 30 s: about a minute in all) so a short
   * Temporal outage delays indexing by seconds, not until the once-a-minute sweep; after that the
   * error is reported and the sweeper repairs it.
   */
  private async signalWithRetry(driveId: string, artId: string, signal: IndexRequestSignal): Promise<void> {
    const delaysMs = this.opts.retryDelaysMs ?? [1000, 2000, 4000, 8000, 15_000, 30_000];
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.signal(driveId, artId, signal);
      } catch (err) {
        if (attempt >= delaysMs.length) throw err;
        await new Promise((r) => setTimeout(r, delaysMs[attempt]));
      }
    }
  }

  private async signal(driveId: string, artId: string, signal: IndexRequestSignal): Promise<void> {
    await this.opts.temporal.withDeadline(Date.now() + (this.opts.signalDeadlineMs ?? 5000), () =>
      requestIndexing(this.opts, { ...this.opts.workflowInput, driveId, artId }, signal),
    );
  }
}
