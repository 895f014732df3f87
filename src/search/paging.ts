import { createHash } from 'node:crypto';
import { decodeCursor, encodeCursor } from '../lib/cursors.js';
import { AppError } from '../lib/errors.js';

/**
 * Pages over ranked results (/v0/search, /v0/find). Ranking is deterministic (score, then path
 * and ordinal), so a page is a slice of the same ranking at an offset; the cursor carries the
 * offset and a fingerprint of the query, so a cursor replayed with another query is BAD_CURSOR.
 * Results are offered to a depth of MAX_RESULT_DEPTH: engines fetch offset + limit + 1 hits and
 * Typesense caps a page at 250.
 */
export const MAX_RESULT_DEPTH = 200;

interface RankCursor {
  o: number;
  f: string;
}

export function queryFingerprint(query: Record<string, unknown>): string {
  const { cursor: _c, limit: _l, ...rest } = query;
  const stable = JSON.stringify(
    Object.keys(rest)
      .sort()
      .map((k) => [k, rest[k]]),
  );
  return createHash('sha256').update(stable).digest('base64url').slice(0, 16);
}

/** Where a page starts and how many ranked hits to ask the engine for. */
export function pageWindow(cursor: string | undefined, fingerprint: string, limit: number) {
  let offset = 0;
  if (cursor) {
    const c = decodeCursor(
      cursor,
      (v): v is RankCursor =>
        Number.isInteger((v as RankCursor).o) && (v as RankCursor).o > 0 && typeof (v as RankCursor).f === 'string',
    );
    if (c.f !== fingerprint)
      throw new AppError('BAD_CURSOR', 'cursor belongs to another query; resend the same q and filters');
    offset = Math.min(c.o, MAX_RESULT_DEPTH);
  }
  return { offset, fetch: offset + limit + 1 };
}

/** The page's items and the cursor of the next page (null on the last page or at the depth limit). */
export function rankedPage<T>(hits: T[], offset: number, limit: number, fingerprint: string) {
  const end = Math.min(offset + limit, MAX_RESULT_DEPTH);
  const more = hits.length > end && end < MAX_RESULT_DEPTH;
  return {
    items: hits.slice(offset, end),
    next_cursor: more ? encodeCursor({ o: end, f: fingerprint } satisfies RankCursor) : null,
  };
}
