import { EventSourceParserStream } from 'eventsource-parser/stream';
import { ok, type DriveClient } from './client.js';
import { DriveError } from './errors.js';
import type { EventOut } from './types.js';

export interface FollowOptions {
  /** Resume after this seq (sent as Last-Event-ID); absent: start from now. */
  after?: string;
  action?: string;
  artId?: string;
  signal?: AbortSignal;
  /** Polling interval when the server has no stream; default 1 s. */
  pollIntervalMs?: number;
  /** Told which transport is in use ('stream', or 'poll' when the server answers 404 for the stream). */
  onTransport?: (transport: 'stream' | 'poll') => void;
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });

/**
 * The drive's changes as they happen, oldest first: the SSE stream `/v0/events/stream` (issue 28),
 * reconnecting with `Last-Event-ID` after a drop so nothing is missed or repeated; when the server has
 * no stream (404), polling `GET /v0/events`. Ends when `signal` aborts.
 */
export async function* followEvents(client: DriveClient, options: FollowOptions = {}): AsyncGenerator<EventOut> {
  let lastId = options.after;
  let failures = 0;
  while (!options.signal?.aborted) {
    const query = new URLSearchParams();
    if (options.action) query.set('action', options.action);
    if (options.artId) query.set('art_id', options.artId);
    const headers: Record<string, string> = { accept: 'text/event-stream' };
    if (lastId !== undefined) headers['last-event-id'] = lastId;
    let res: Response;
    try {
      res = await client.fetch(`/v0/events/stream?${query}`, { headers, signal: options.signal });
    } catch (err) {
      if (options.signal?.aborted) return;
      if (!(err instanceof DriveError) || err.code !== 'NETWORK_ERROR' || ++failures > 5) throw err;
      await sleep(1000 * failures, options.signal);
      continue;
    }
    if (res.status === 404) {
      await res.body?.cancel();
      options.onTransport?.('poll');
      yield* pollEvents(client, { ...options, after: lastId });
      return;
    }
    if (!res.ok || !res.body) throw await DriveError.fromResponse(res);
    options.onTransport?.('stream');
    failures = 0;
    try {
      const messages = res.body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream());
      for await (const message of messages) {
        if (message.id) lastId = message.id;
        if (message.data) yield JSON.parse(message.data) as EventOut;
      }
    } catch (err) {
      if (options.signal?.aborted) return;
      if (++failures > 5) throw new DriveError(0, 'NETWORK_ERROR', `event stream: ${(err as Error).message}`);
    }
    // The stream ended (a deploy, a proxy timeout): reconnect from the last id seen.
    await sleep(Math.min(5000, 250 * 2 ** failures), options.signal);
  }
}

/** How far back each poll looks again, for writes committed after a later-stamped one was already seen. */
const POLL_OVERLAP_MS = 10_000;

/**
 * Polling `GET /v0/events` for servers without the stream. With `seq` on events (the change feed) it asks
 * `?after=<seq>`; without, it re-reads a window of `since` (overlapping, since created_at is not commit
 * order) and drops the ids it has already yielded.
 */
async function* pollEvents(client: DriveClient, options: FollowOptions): AsyncGenerator<EventOut> {
  const filters = { action: options.action, art_id: options.artId };
  const newest = (await ok(client.api.GET('/v0/events', { params: { query: { ...filters, limit: 1 } } }))).items[0] as
    EventOut | undefined;
  // A server without seq (before the change feed) ignores `after`: read by time then.
  const hasSeq = newest === undefined || newest.seq !== undefined;
  let after = !hasSeq ? undefined : options.after !== undefined ? Number(options.after) : newest?.seq;
  // Without seq: everything from the newest event's time on, minus what is already there.
  const seen = new Map<string, number>();
  let watermark = newest ? Date.parse(newest.created_at) : undefined;
  if (after === undefined && watermark !== undefined)
    for (const e of await readSince(client, filters, watermark - POLL_OVERLAP_MS))
      seen.set(e.id, Date.parse(e.created_at));

  while (!options.signal?.aborted) {
    let fresh: EventOut[];
    if (after !== undefined) {
      fresh = await readAfter(client, filters, after);
      if (fresh.length) after = Math.max(...fresh.map((e) => e.seq ?? after!));
    } else {
      const window = watermark === undefined ? undefined : watermark - POLL_OVERLAP_MS;
      fresh = (await readSince(client, filters, window)).filter((e) => !seen.has(e.id));
      for (const e of fresh) seen.set(e.id, Date.parse(e.created_at));
      if (fresh.some((e) => e.seq !== undefined)) after = Math.max(...fresh.map((e) => e.seq ?? 0));
      watermark = Math.max(watermark ?? 0, ...fresh.map((e) => Date.parse(e.created_at)));
      for (const [id, at] of seen) if (at < watermark - 2 * POLL_OVERLAP_MS) seen.delete(id);
    }
    yield* fresh;
    await sleep(options.pollIntervalMs ?? 1000, options.signal);
  }
}

type Filters = { action?: string; art_id?: string };

/** Events with seq > after, oldest first (the change feed's catch-up). */
async function readAfter(client: DriveClient, filters: Filters, after: number): Promise<EventOut[]> {
  const out: EventOut[] = [];
  let cursor: string | undefined;
  do {
    const query = { ...filters, after, cursor, limit: 200 } as Filters & { limit: number; cursor?: string };
    const page = await ok(client.api.GET('/v0/events', { params: { query } }));
    out.push(...(page.items as EventOut[]));
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
  return out.sort((a, b) => (a.seq ?? 0) - (b.seq ?? 0));
}

/** Events created at or after `sinceMs` (every page), oldest first. */
async function readSince(client: DriveClient, filters: Filters, sinceMs: number | undefined): Promise<EventOut[]> {
  const out: EventOut[] = [];
  const since = sinceMs === undefined ? undefined : new Date(sinceMs).toISOString();
  let cursor: string | undefined;
  do {
    const page = await ok(
      client.api.GET('/v0/events', { params: { query: { ...filters, since, cursor, limit: 200 } } }),
    );
    out.push(...(page.items as EventOut[]));
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
  // The log reads newest first; a follower prints oldest first.
  return out.reverse();
}
