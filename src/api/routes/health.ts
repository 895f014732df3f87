import { Router } from 'express';
import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { checkDependencies, isOperator } from '../../readiness.js';
import { AppError } from '../../errors.js';
import { route } from '../http/route.js';

const checksSchema = z.object({ postgres: z.string(), temporal: z.string(), s3: z.string() });

export function healthRouter(ctx: AppContext): Router {
  const router = Router();

  route(router, {
    method: 'get',
    path: '/healthz',
    summary: 'Liveness: the process is up',
    tags: ['health'],
    responses: { 200: { description: 'up', schema: z.object({ status: z.literal('ok') }) } },
  }, () => ({ status: 'ok' as const }));

  route(router, {
    method: 'get',
    path: '/readyz',
    summary: 'Readiness: PostgreSQL, Temporal and S3 are all reachable',
    tags: ['health'],
    errors: ['NOT_READY'],
    responses: {
      200: { description: 'ready', schema: z.object({ status: z.literal('ready'), checks: checksSchema }) },
      503: { description: 'a dependency is unreachable; the message names it' },
    },
  }, async ({ req }) => {
    const checks = await checkDependencies(ctx, { detail: isOperator(ctx, req.get('authorization')) });
    const failing = Object.entries(checks).filter(([, s]) => s !== 'ok').map(([n]) => n);
    if (failing.length) throw new AppError('NOT_READY', `not ready: ${failing.join(', ')} unreachable`, { checks });
    return { status: 'ready' as const, checks };
  });

  return router;
}
