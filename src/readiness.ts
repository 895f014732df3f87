import type { AppContext } from './context.js';
import { checkBucket } from './storage/s3.js';

/** Readiness probes of the three dependencies (GET /readyz). Each answers 'ok' or why not, within 2 s. */
const CHECK_TIMEOUT_MS = 2000;

export type DependencyChecks = Record<'postgres' | 'temporal' | 's3', string>;

function withTimeout<T>(p: Promise<T>): Promise<T> {
  return Promise.race([
    p,
    new Promise<T>((_, reject) => setTimeout(() => reject(new Error('timed out')), CHECK_TIMEOUT_MS).unref()),
  ]);
}

export async function checkDependencies(app: AppContext): Promise<DependencyChecks> {
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
        return [name, `unreachable: ${(err as Error).message || (err as Error).name}`] as const;
      }
    }),
  );
  return Object.fromEntries(results) as DependencyChecks;
}
