/**
 * The outbox's handler contract as the wiki uses it (the transactional outbox of src/outbox owns
 * the real declarations; these are structurally identical, so `createWikiHandler` plugs into its
 * drainer unchanged). Requests are coalesced per artifact; the handler brings each artifact's wiki
 * contribution to the artifact's current state, whatever ops queued it.
 */
export type OutboxOp = 'content' | 'record' | 'remove';

export interface OutboxRequest {
  driveId: string;
  artId: string;
  ops: OutboxOp[];
}

export interface BatchProgress {
  heartbeat(details?: unknown): void;
}

export interface WikiOutboxHandler {
  topic: 'wiki';
  /** Processes one batch; returns the artifacts that failed (retried with backoff); all other requests are done. */
  handle(batch: OutboxRequest[], progress: BatchProgress): Promise<Map<string, Error>>;
}
