import type { RequestContext } from '../platform/request-context.js';
import type { SearchFilters, SearchHit } from './engine.js';
import { pageWindow, queryFingerprint, rankedPage } from './paging.js';
import type { SemanticReport } from './semantic-report.js';
import type { FindInput, FusedPassageHit, SearchMatch, SearchService } from './service.js';

/**
 * One page of ranked hits for the caller's drive (GET /v0/search and /v0/find, MCP search and find). With `paging`
 * (REST) a page is a slice of the ranking at the cursor's offset, and next_cursor continues it; without (MCP: one
 * ranked page) the engine is asked for `limit` hits and next_cursor is null.
 */
export interface Paging {
  cursor?: string;
  /** The query as the door parsed it: everything but cursor and limit fingerprints the cursor. */
  query: Record<string, unknown>;
}

export interface HitPage<H> {
  items: H[];
  next_cursor: string | null;
}

async function rankedHits<H>(
  limit: number,
  paging: Paging | undefined,
  fetch: (fetchLimit: number) => Promise<H[]>,
): Promise<HitPage<H>> {
  if (!paging) return { items: await fetch(limit), next_cursor: null };
  const fingerprint = queryFingerprint(paging.query);
  const { offset, fetch: fetchLimit } = pageWindow(paging.cursor, fingerprint, limit);
  return rankedPage(await fetch(fetchLimit), offset, limit, fingerprint);
}

/** Lexical full-text search: one hit per file; `match` says whether every word matched or, as a fallback, any. */
export async function searchPage(
  rc: RequestContext,
  service: SearchService,
  input: { q: string; filters: SearchFilters; paging?: Paging },
): Promise<HitPage<SearchHit> & { match: SearchMatch }> {
  let match: SearchMatch = 'all';
  const page = await rankedHits(input.filters.limit, input.paging, async (limit) => {
    const found = await service.search(rc.driveId, input.q, { ...input.filters, limit });
    match = found.match;
    return found.hits;
  });
  return { ...page, match };
}

/** A page of find: its hits and what the semantic leg did (never a silent lexical-only answer). */
export interface FindPage extends HitPage<FusedPassageHit> {
  semantic: SemanticReport;
}

/** Passage retrieval (hybrid, lexical or semantic): several hits may come from one file. */
export async function findPage(
  rc: RequestContext,
  service: SearchService,
  input: { find: FindInput; paging?: Paging },
): Promise<FindPage> {
  let semantic: SemanticReport | undefined;
  const page = await rankedHits(input.find.limit, input.paging, async (limit) => {
    const found = await service.find(rc.driveId, { ...input.find, limit });
    rc.app.logger.debug({ mode: input.find.mode, hits: found.hits.length, semantic: found.semantic.status }, 'find');
    semantic = found.semantic;
    return found.hits;
  });
  return { ...page, semantic: semantic! };
}

/**
 * A person's search box (the web): files that match (lexical search) and the passages that match best (find, hybrid,
 * which falls back to lexical without an embedder), both on the caller's drive, one page each.
 */
export async function searchAndFind(
  rc: RequestContext,
  service: SearchService,
  q: string,
  limit = 20,
): Promise<{ files: SearchHit[]; passages: FusedPassageHit[]; semantic: SemanticReport }> {
  const [files, passages] = await Promise.all([
    searchPage(rc, service, { q, filters: { limit } }),
    findPage(rc, service, { find: { q, mode: 'hybrid', limit: Math.min(limit, 10) } }),
  ]);
  return { files: files.items, passages: passages.items, semantic: passages.semantic };
}
