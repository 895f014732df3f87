import type { EntityManager } from '@mikro-orm/postgresql';
import type { Orm } from './orm.js';

/**
 * Raw SQL on the ORM's connection. Values are bound with `?`; MikroORM quotes strings, numbers,
 * booleans, dates and null itself. JSON goes in as a string with `?::jsonb`, text arrays as
 * `array[?]::text[]` (an array parameter expands to a comma list).
 */
export type Db = EntityManager;

export async function rows<T>(db: Db, sql: string, params: unknown[] = []): Promise<T[]> {
  return db.execute<T[]>(sql, params as unknown[]);
}

export async function one<T>(db: Db, sql: string, params: unknown[] = []): Promise<T | undefined> {
  const r = await rows<T>(db, sql, params);
  return r[0];
}

/**
 * A FROM item that turns off the wait for the WAL flush at the commit of the statement's own (implicit) transaction:
 * `set_config(..., true)` is SET LOCAL, read when the transaction commits. For a commit whose loss in a crash is
 * harmless (a write-budget count, the blob touch before an object is written: docs/decisions/write-path.md), so that
 * a write waits on one flush only, its own. The change is visible to others at once all the same; the next
 * synchronous commit flushes it.
 */
export const ASYNC_COMMIT = `(select set_config('synchronous_commit', 'off', true)) as async_commit`;

export function pgCode(err: unknown): string | undefined {
  return (err as { code?: string })?.code;
}

export const isUniqueViolation = (err: unknown) => pgCode(err) === '23505';
const isRetryable = (err: unknown) => pgCode(err) === '40P01' || pgCode(err) === '40001';

/**
 * Runs fn in one transaction on a fresh fork; retries deadlocks and serialization failures a few times.
 * Takes only the ORM (an AppContext fits): src/db sits below the context and must not import it.
 */
export async function transaction<T>(ctx: { orm: Orm }, fn: (tx: Db) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await ctx.orm.em.fork().transactional((tx) => fn(tx as Db));
    } catch (err) {
      if (!isRetryable(err) || attempt >= 5) throw err;
      await new Promise((r) => setTimeout(r, 5 * attempt * Math.random()));
    }
  }
}

/** Escapes LIKE metacharacters so a user prefix matches literally. */
export function likePrefix(prefix: string): string {
  return prefix.replace(/[\\%_]/g, (c) => `\\${c}`) + '%';
}
