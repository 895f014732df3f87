import { isLegacyRequest, PROTOCOL_VERSION_META_KEY, SUBSCRIPTION_ID_META_KEY } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { openEventStream } from '../feed/stream.js';
import type { EventRow } from '../files/events.js';
import { AppError } from '../lib/errors.js';
import type { RequestContext } from '../platform/request-context.js';
import { INVALID_PARAMS } from './protocol.js';
import { DRIVE_URI, pathOfUri, uriOf } from './resources.js';
import type { ToolEnv } from './tool-kit.js';

/**
 * `subscriptions/listen` (MCP 2026-07-28) over the drive's change feed. A client names files (`drive:///a/b.md`) or
 * folders (`drive:///reports/`, or `drive:///` for the whole drive) and gets `notifications/resources/updated` with
 * the changed file's URI for every write, delete, move and restore the feed records, in the feed's seq order. The
 * SDK's own listen router matches URIs exactly and fans out through an in-process bus; this one follows the drive's
 * feed in PostgreSQL, so a folder matches what is below it, one drive never hears another, and a write committed by
 * any API process reaches a stream held by any other (docs/decisions/mcp.md, "Subscriptions").
 */
const MODERN = '2026-07-28';
const MAX_URIS = 100;
const encoder = new TextEncoder();

const listenParams = z.looseObject({
  notifications: z.looseObject({
    resourceSubscriptions: z.array(z.string().min(1).max(2048)).max(MAX_URIS).optional(),
  }),
});

type ListenMessage = { id: string | number; method: string; params?: Record<string, unknown> };

const claimedRevision = (request: Request, message: ListenMessage) => {
  const meta = message.params?._meta as Record<string, unknown> | undefined;
  return request.headers.get('mcp-protocol-version') ?? (meta?.[PROTOCOL_VERSION_META_KEY] as string | undefined);
};

/** A 2026-07-28 `subscriptions/listen` request this endpoint serves (anything else goes to the SDK, which answers). */
export async function isListenRequest(request: Request, message: unknown): Promise<boolean> {
  const m = message as ListenMessage;
  if (typeof m !== 'object' || m === null || Array.isArray(m) || m.method !== 'subscriptions/listen') return false;
  if (m.id === undefined || (await isLegacyRequest(request, message))) return false;
  return claimedRevision(request, m) === MODERN;
}

/** One subscription: a file's exact path, or a folder prefix ('' is the whole drive). */
type Interest = { exact: string } | { under: string };
const interestOf = (path: string): Interest[] =>
  path === '' || path.endsWith('/') ? [{ under: path }] : [{ exact: path }, { under: `${path}/` }];
const matches = (interests: Interest[], path: string) =>
  interests.some((i) => ('exact' in i ? i.exact === path : path.startsWith(i.under)));

/** The paths an event touched (a move has two), each once. */
const pathsOf = (e: EventRow) => [
  ...new Set(['path', 'from', 'to'].map((k) => e.metadata[k]).filter((p): p is string => typeof p === 'string')),
];

const rpcError = (id: ListenMessage['id'], message: string) =>
  Response.json({ jsonrpc: '2.0', id, error: { code: INVALID_PARAMS, message } }, { status: 200 });

/**
 * Opens the stream: the feed's slot is taken first (429 past the per-credential, per-drive or per-address cap, as
 * GET /v0/events/stream), then events are pulled one at a time as the client reads, so a client that stops reading
 * pauses the feed instead of growing a buffer. The stream ends after FEED_STREAM_MAX_S with the protocol's graceful
 * close frame; the client listens again.
 */
export async function serveListen(
  env: ToolEnv,
  message: ListenMessage,
  signal: AbortSignal,
  address: string,
): Promise<Response> {
  const parsed = listenParams.safeParse(message.params ?? {});
  if (!parsed.success)
    return rpcError(
      message.id,
      'Invalid params for subscriptions/listen: "notifications" must be a SubscriptionFilter',
    );
  const asked = parsed.data.notifications.resourceSubscriptions ?? [];
  const honoredUris = asked.filter((uri) => pathOfUri(uri) !== undefined);
  if (asked.length && !honoredUris.length)
    return rpcError(message.id, `Invalid params for subscriptions/listen: resource URIs are ${DRIVE_URI}<path>`);
  const interests = honoredUris.flatMap((uri) => interestOf(pathOfUri(uri)!));
  const honored = honoredUris.length ? { resourceSubscriptions: honoredUris } : {};
  const rc: RequestContext = {
    app: env.app,
    driveId: env.auth.driveId,
    principal: env.auth,
    actor: null,
    requestId: env.requestId,
  };
  const { keepaliveMs, streamMaxMs } = env.app.config.feed;
  const stop = new AbortController();
  signal.addEventListener('abort', () => stop.abort(), { once: true });
  let events: AsyncGenerator<EventRow>;
  try {
    // "Now" is fixed here, before the ack, so a write the client makes after seeing the ack is always reported.
    events = await openEventStream(rc, { filter: {}, signal: stop.signal, address });
  } catch (err) {
    stop.abort();
    if (err instanceof AppError && err.status === 429)
      return Response.json(
        { jsonrpc: '2.0', id: message.id, error: { code: -32000, message: err.message } },
        { status: 429, headers: err.headers },
      );
    throw err;
  }
  const stamp = { [SUBSCRIPTION_ID_META_KEY]: message.id };
  const frame = (m: Record<string, unknown>) => encoder.encode(`event: message\ndata: ${JSON.stringify(m)}\n\n`);
  const note = (method: string, params: Record<string, unknown>) => frame({ jsonrpc: '2.0', method, params });
  const ready: Uint8Array[] = [
    note('notifications/subscriptions/acknowledged', { notifications: honored, _meta: stamp }),
  ];
  let ended = false;
  const lifetime = setTimeout(() => {
    ended = true;
    stop.abort();
  }, streamMaxMs);
  let keepalive: NodeJS.Timeout | undefined;
  const finish = () => {
    clearTimeout(lifetime);
    clearInterval(keepalive);
    stop.abort();
  };

  const body = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        // A comment only when the client keeps up (a full queue means it is not reading).
        keepalive = setInterval(() => {
          if ((controller.desiredSize ?? 0) > 0) controller.enqueue(encoder.encode(': keepalive\n\n'));
        }, keepaliveMs);
      },
      async pull(controller) {
        while (!ready.length) {
          const next = await events.next().catch((err: unknown) => {
            env.app.logger.warn({ err, drive_id: env.auth.driveId }, 'mcp: subscription stream ended on an error');
            return { done: true as const, value: undefined };
          });
          if (next.done) {
            if (ended)
              controller.enqueue(
                frame({ jsonrpc: '2.0', id: message.id, result: { resultType: 'complete', _meta: stamp } }),
              );
            finish();
            return controller.close();
          }
          const event = next.value;
          for (const path of pathsOf(event).filter((p) => matches(interests, p)))
            ready.push(
              note('notifications/resources/updated', {
                uri: uriOf(path),
                _meta: { ...stamp, 'agent-drive/seq': Number(event.seq), 'agent-drive/action': event.action },
              }),
            );
        }
        controller.enqueue(ready.shift()!);
      },
      cancel() {
        finish();
      },
    },
    { highWaterMark: 8 },
  );
  return new Response(body, {
    status: 200,
    headers: {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache, no-transform',
      'x-accel-buffering': 'no',
    },
  });
}
