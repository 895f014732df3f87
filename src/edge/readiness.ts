import { createHash, timingSafeEqual } from 'node:crypto';
import type { AppContext } from '../platform/context.js';
import { outboxDepth, type OutboxDepth } from '../outbox/outbox.js';
import { checkBucket } from '../storage/s3.js';

/** Readiness probes of the three dependencies (GET /readyz). Each answers 'ok' or why not, within 2 s. */
const CHECK_TIMEOUT_MS = 2000;

export type DependencyChecks = Record<'postgres' | 'temporal' | 's3', string>;

export function withTimeout<T>(p: Promise<T>): Promise<T> {
  return Promise.race([
    p,
    new Promise<T>((_, reject) => setTimeout(() => reject(new Error('timed out')), CHECK_TIMEOUT_MS).unref()),
  ]);
}

/**
 * Each dependency's state. Anyone may ask, so by default the answer is only 'ok' or 'down': error
 * text carries internal addresses. An operator (OPS_TOKEN) gets the reason.
 */
export async function checkDependencies(app: AppContext, opts: { detail: boolean }): Promise<DependencyChecks> {
  const probes = {
    postgres: () => app.orm.em.getConnection().execute('select 1'),
    temporal: () => app.temporal.workflowService.getSystemInfo({}),
    s3: () => checkBucket(app.s3, app.config.s3.bucket),
  };
  const results = await Promise.all(
    Object.entries(probes).map(async ([name, probe]) => {
      try {
        await withTimeout<unknown>(probe());
        return [name, 'ok'] as const;
      } catch (err) {
        return [name, opts.detail ? `unreachable: ${(err as Error).message || (err as Error).name}` : 'down'] as const;
      }
    }),
  );
  return Object.fromEntries(results) as DependencyChecks;
}

/**
 * The indexing backlog per outbox topic (operators' readiness details): how many requests wait, how
 * old the oldest is, how many are backing off after a failure. Null when PostgreSQL does not answer.
 */
export async function outboxBacklog(app: AppContext): Promise<OutboxDepth[] | null> {
  return withTimeout(outboxDepth(app.pool)).catch(() => null);
}

/** Whether a bearer credential is the operator token (compared in constant time). */
export function isOperator(app: AppContext, authorization: string | undefined): boolean {
  const token = app.config.secrets.opsToken;
  const presented = /^Bearer\s+(\S+)$/i.exec(authorization ?? '')?.[1];
  if (!token || !presented) return false;
  const a = createHash('sha256').update(token).digest();
  const b = createHash('sha256').update(presented).digest();
  return timingSafeEqual(a, b);
}
