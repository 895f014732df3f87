import type { Router } from 'express';
import { z } from 'zod';
import { requestContextOf } from '../http/auth-context.js';
import type { AppContext } from '../../platform/context.js';
import { listEvents } from '../../files/events.js';
import { eventOut } from '../../shapes/events.js';
import { parseWith, route, RouteRegistry } from '../http/route.js';
import { eventPageSchema, limitParam, cursorParam } from '../../shapes/artifact-schemas.js';
import { afterParam, prefixParam, sseMessage } from '../../shapes/feed-schemas.js';
import { openEventStream } from '../../feed/stream.js';
import { sseWriter } from '../http/sse.js';
import { trackSseStream } from '../../platform/metrics.js';

const filterQuery = {
  art_id: z.string().max(64).optional(),
  action: z.string().max(64).optional(),
  prefix: prefixParam,
  run_id: z.string().max(64).optional().describe('only the changes of this run'),
};

export function eventsRouter(routes: RouteRegistry, ctx: AppContext): Router {
  const router = routes.router();
  route(
    router,
    {
      method: 'get',
      path: '/v0/events',
      summary: 'The drive event log, newest first; oldest first from `after` (catch-up on the change feed)',
      tags: ['events'],
      auth: true,
      query: z.object({
        ...filterQuery,
        since: z.iso.datetime({ offset: true }).optional(),
        before: z.iso.datetime({ offset: true }).optional(),
        after: afterParam,
        cursor: cursorParam,
        limit: limitParam(200, 50),
      }),
      responses: { 200: { description: 'event page', schema: eventPageSchema } },
    },
    async ({ query, req }) => {
      const page = await listEvents(requestContextOf(ctx, req), {
        artId: query.art_id,
        action: query.action,
        prefix: query.prefix,
        runId: query.run_id,
        since: query.since ? new Date(query.since) : undefined,
        before: query.before ? new Date(query.before) : undefined,
        after: query.after,
        cursor: query.cursor,
        limit: query.limit,
      });
      return { items: page.items.map(eventOut), next_cursor: page.next_cursor };
    },
  );

  route(
    router,
    {
      method: 'get',
      path: '/v0/events/stream',
      summary:
        'The change feed as Server-Sent Events: `id: <seq>`, `event: <action>`, `data: <EventOut JSON>`; resumes after ' +
        'Last-Event-ID or `after` (else starts now); a comment line at least every 15 s. A resume point more than ' +
        'FEED_CATCH_UP_MAX (1,000) events behind is 409 FEED_GAP_TOO_LARGE (page GET /v0/events?after= first); ' +
        'open streams are capped per credential, drive and client address (429 with Retry-After)',
      tags: ['events'],
      auth: true,
      query: z.object({ ...filterQuery, after: afterParam }),
      headers: z.object({
        'last-event-id': z.string().optional().describe('the last seq received; wins over `after`'),
      }),
      responses: {
        200: {
          description:
            'a text/event-stream, one message per event, oldest first; it ends after FEED_STREAM_MAX_S (300 s) ' +
            'and the client resumes with Last-Event-ID',
          contentType: 'text/event-stream',
          schema: z.string(),
        },
      },
    },
    async ({ query, req, res }) => {
      const lastEventId = parseWith(afterParam, req.headers['last-event-id'] || undefined, 'header');
      const rc = requestContextOf(ctx, req);
      const stop = new AbortController();
      res.on('close', () => stop.abort());
      const events = await openEventStream(rc, {
        after: lastEventId ?? query.after,
        filter: { artId: query.art_id, action: query.action, prefix: query.prefix, runId: query.run_id },
        signal: stop.signal,
        address: req.ip ?? 'unknown',
      });
      res.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache, no-transform',
        'x-accel-buffering': 'no',
      });
      const out = sseWriter(res, stop, ctx.config.feed);
      trackSseStream(res);
      // `retry`: how soon an EventSource reconnects once the stream ends (at FEED_STREAM_MAX_S, or a restart).
      out.comment('retry: 1000\n: connected\n\n');
      const keepalive = setInterval(() => out.comment(': keepalive\n\n'), ctx.config.feed.keepaliveMs);
      const lifetime = setTimeout(() => stop.abort(), ctx.config.feed.streamMaxMs);
      try {
        for await (const row of events) if (!(await out.send(sseMessage(eventOut(row))))) break;
      } catch (err) {
        // The stream has started: the client sees the connection end and resumes from its Last-Event-ID.
        if (!stop.signal.aborted) ctx.logger.warn({ err }, 'event stream ended by an error');
      } finally {
        clearInterval(keepalive);
        clearTimeout(lifetime);
        stop.abort();
        res.end();
      }
    },
  );
  return router;
}
