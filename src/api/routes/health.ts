import type { Router } from 'express';
import { z } from 'zod';
import type { AppContext } from '../../platform/context.js';
import { checkDependencies, isOperator, outboxBacklog } from '../../edge/readiness.js';
import { apiMetrics } from '../../edge/metrics.js';
import { AppError } from '../../lib/errors.js';
import { route, RouteRegistry } from '../http/route.js';

const checksSchema = z.object({ postgres: z.string(), temporal: z.string(), s3: z.string() });
const outboxSchema = z
  .array(z.object({ topic: z.string(), depth: z.number().int(), oldest_s: z.number(), retrying: z.number().int() }))
  .nullable()
  .describe(
    "operators only (OPS_TOKEN): indexing requests waiting per outbox topic, the oldest one's age in seconds, and how many back off after a failure",
  );

export function healthRouter(routes: RouteRegistry, ctx: AppContext): Router {
  const router = routes.router();

  route(
    router,
    {
      method: 'get',
      path: '/healthz',
      summary: 'Liveness: the process is up',
      tags: ['health'],
      responses: { 200: { description: 'up', schema: z.object({ status: z.literal('ok') }) } },
    },
    () => ({ status: 'ok' as const }),
  );

  route(
    router,
    {
      method: 'get',
      path: '/readyz',
      summary: 'Readiness: PostgreSQL, Temporal and S3 are all reachable',
      tags: ['health'],
      errors: ['NOT_READY'],
      responses: {
        200: {
          description: 'ready',
          schema: z.object({ status: z.literal('ready'), checks: checksSchema, outbox: outboxSchema.optional() }),
        },
        503: { description: 'a dependency is unreachable; the message names it' },
      },
    },
    async ({ req }) => {
      const detail = isOperator(ctx, req.get('authorization'));
      const checks = await checkDependencies(ctx, { detail });
      const failing = Object.entries(checks)
        .filter(([, s]) => s !== 'ok')
        .map(([n]) => n);
      if (failing.length) throw new AppError('NOT_READY', `not ready: ${failing.join(', ')} unreachable`, { checks });
      return { status: 'ready' as const, checks, ...(detail ? { outbox: await outboxBacklog(ctx) } : {}) };
    },
  );

  const metrics = apiMetrics(ctx);
  route(
    router,
    {
      method: 'get',
      path: '/metrics',
      summary: 'Prometheus metrics, for operators only (Authorization: Bearer <OPS_TOKEN>); docs/operations.md',
      tags: ['health'],
      errors: ['UNAUTHENTICATED'],
      responses: {
        200: {
          description:
            'the Prometheus text exposition format: counts by route, topic, state and outcome, no tenant data',
          contentType: 'text/plain',
          schema: z.string(),
        },
        401: { description: 'no operator token, or the service has none configured (OPS_TOKEN)' },
      },
    },
    async ({ req, res }) => {
      if (!isOperator(ctx, req.get('authorization'))) {
        res.setHeader('www-authenticate', 'Bearer realm="metrics"');
        throw new AppError('UNAUTHENTICATED', 'metrics need the operator token: Authorization: Bearer <OPS_TOKEN>');
      }
      res.type(metrics.contentType).send(await metrics.render());
    },
  );

  return router;
}
