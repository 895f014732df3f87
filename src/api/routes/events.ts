import { Router } from 'express';
import { z } from 'zod';
import { requestContextOf } from '../http/auth-context.js';
import type { AppContext } from '../../platform/context.js';
import { listEvents } from '../../files/events.js';
import { eventOut } from '../../shapes/events.js';
import { route } from '../http/route.js';
import { eventPageSchema, limitParam, cursorParam } from '../../shapes/artifact-schemas.js';
import { afterParam, prefixParam } from '../../shapes/feed-schemas.js';

const filterQuery = {
  art_id: z.string().max(64).optional(),
  action: z.string().max(64).optional(),
  prefix: prefixParam,
};

export function eventsRouter(ctx: AppContext): Router {
  const router = Router();
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
        since: query.since ? new Date(query.since) : undefined,
        before: query.before ? new Date(query.before) : undefined,
        after: query.after,
        cursor: query.cursor,
        limit: query.limit,
      });
      return { items: page.items.map(eventOut), next_cursor: page.next_cursor };
    },
  );

  return router;
}
