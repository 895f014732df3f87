import type { Router } from 'express';
import { z } from 'zod';
import { requestContextOf } from '../http/auth-context.js';
import type { AppContext } from '../../platform/context.js';
import { route, RouteRegistry } from '../http/route.js';
import {
  createWebhook,
  deleteWebhook,
  listWebhooks,
  replayWebhook,
  rotateWebhookSecret,
  webhookDeliveries,
} from '../../feed/webhooks.js';
import { deliveriesOut, webhookOut } from '../../shapes/webhooks.js';
import { limitParam } from '../../shapes/artifact-schemas.js';
import {
  deliveriesOutSchema,
  replayInSchema,
  replayOutSchema,
  webhookCreatedSchema,
  webhookDeletedSchema,
  webhookInSchema,
  webhookListSchema,
  webhookRotatedSchema,
} from '../../shapes/feed-schemas.js';

/** Webhooks of the caller's drive (issue 28): register, list, delete, rotate the secret, see and replay deliveries. */
const tags = ['webhooks'];
const params = z.object({ webhook_id: z.string().min(1).max(64) });

export function webhooksRouter(routes: RouteRegistry, ctx: AppContext): Router {
  const router = routes.router();
  const rc = (req: Parameters<typeof requestContextOf>[1]) => requestContextOf(ctx, req);
  route(
    router,
    {
      method: 'post',
      path: '/v0/webhooks',
      summary: 'Register a webhook: every matching event of the drive is POSTed to url, signed, in seq order',
      tags,
      auth: true,
      body: webhookInSchema,
      responses: { 201: { description: 'the webhook, with its secret (shown once)', schema: webhookCreatedSchema } },
    },
    async ({ body, req }) => {
      const { row, secret } = await createWebhook(rc(req), {
        url: body.url,
        actions: body.actions ?? [],
        prefix: body.prefix ?? null,
      });
      return { ...webhookOut(row), secret };
    },
  );
  route(
    router,
    {
      method: 'get',
      path: '/v0/webhooks',
      summary: "The drive's webhooks (without secrets)",
      tags,
      auth: true,
      responses: { 200: { description: 'webhooks', schema: webhookListSchema } },
    },
    async ({ req }) => ({ items: (await listWebhooks(rc(req))).map(webhookOut) }),
  );
  route(
    router,
    {
      method: 'delete',
      path: '/v0/webhooks/:webhook_id',
      summary: 'Delete a webhook: nothing more is delivered to it',
      tags,
      auth: true,
      params,
      responses: { 200: { description: 'deleted', schema: webhookDeletedSchema } },
    },
    async ({ params: p, req }) => ({ ok: true as const, webhook_id: (await deleteWebhook(rc(req), p.webhook_id)).id }),
  );
  route(
    router,
    {
      method: 'post',
      path: '/v0/webhooks/:webhook_id/rotate',
      summary: 'A new signing secret; the previous one keeps signing (a second v1= value) for 24 hours',
      tags,
      auth: true,
      params,
      responses: { 200: { description: 'the webhook with its new secret', schema: webhookRotatedSchema } },
    },
    async ({ params: p, req }) => {
      const { row, secret } = await rotateWebhookSecret(rc(req), p.webhook_id);
      return { ...webhookOut(row), secret };
    },
  );
  route(
    router,
    {
      method: 'get',
      path: '/v0/webhooks/:webhook_id/deliveries',
      summary: 'Recent delivery attempts (status, time, error), what still waits, and where to replay',
      tags,
      auth: true,
      params,
      query: z.object({ limit: limitParam(200, 50) }),
      responses: { 200: { description: 'delivery attempts', schema: deliveriesOutSchema } },
    },
    async ({ params: p, query, req }) =>
      deliveriesOut(ctx.config, await webhookDeliveries(rc(req), p.webhook_id, query.limit)),
  );
  route(
    router,
    {
      method: 'post',
      path: '/v0/webhooks/:webhook_id/replay',
      summary:
        'Redeliver every matching event after a seq (the queue restarts there); a failing webhook is active again',
      tags,
      auth: true,
      params,
      body: replayInSchema,
      responses: { 200: { description: 'queued', schema: replayOutSchema } },
    },
    async ({ params: p, body, req }) => {
      const { row, queued, more } = await replayWebhook(rc(req), p.webhook_id, body.after);
      return { webhook: webhookOut(row), queued, more };
    },
  );
  return router;
}
