import { Router } from 'express';
import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { checkBucket } from '../../storage/s3.js';
import { AppError } from '../../errors.js';
import { route } from '../http/route.js';

const CHECK_TIMEOUT_MS = 2000;

const checksSchema = z.object({ postgres: z.string(), temporal: z.string(), s3: z.string() });

function withTimeout<T>(p: Promise<T>): Promise<T> {
  return Promise.race([
    p,
    new Promise<T>((_, reject) => setTimeout(() => reject(new Error('timed out')), CHECK_TIMEOUT_MS).unref()),
  ]);
}

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
  }, async () => {
    const probes = {
      postgres: () => ctx.orm.em.getConnection().execute('select 1'),
      temporal: () => ctx.temporal.workflowService.getSystemInfo({}),
      s3: () => checkBucket(ctx.s3, ctx.config.s3.bucket),
    };
    const results = await Promise.all(
      Object.entries(probes).map(async ([name, probe]) => {
        try {
          await withTimeout<unknown>(probe());
          return [name, 'ok'] as const;
        } catch (err) {
          return [name, `unreachable: ${(err as Error).message || (err as Error).name}`] as const;
        }
      }),
    );
    const checks = Object.fromEntries(results);
    const failing = results.filter(([, s]) => s !== 'ok').map(([n]) => n);
    if (failing.length) throw new AppError('NOT_READY', `not ready: ${failing.join(', ')} unreachable`, { checks });
    return { status: 'ready' as const, checks };
  });

  return router;
}
