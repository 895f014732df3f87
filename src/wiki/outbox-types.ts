import type { OutboxHandler } from '../outbox/outbox.js';

/**
 * The outbox's handler contract as the wiki uses it (src/outbox owns it). Requests are coalesced
 * per artifact; the wiki's handler brings each artifact's contribution to its current state,
 * whatever ops queued it.
 */
export type { BatchProgress, OutboxOp, OutboxRequest } from '../outbox/outbox.js';

export type WikiOutboxHandler = OutboxHandler & { topic: 'wiki' };
