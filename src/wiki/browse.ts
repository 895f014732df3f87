import { decodeCursor, encodeCursor } from '../lib/cursors.js';
import { checkWikiAvailable } from '../files/grep.js';
import { rows } from '../db/sql.js';
import type { RequestContext } from '../platform/request-context.js';
import { pagePath, type PageKind } from './slug.js';

/**
 * Reading the wiki of the caller's own drive (MCP `wiki_ls`, `wiki_search`, `overview`): pages with
 * at least one source, from the mention rows (so a listing never waits for search indexing).
 */
export interface WikiPageInfo {
  kind: PageKind;
  slug: string;
  name: string;
  path: string;
  url: string;
  /** Sources that mention it. */
  mention_count: number;
  /** The first source's description (path order), cut to 300 characters. */
  summary: string;
  updated_at: string;
}

interface PageRow {
  kind: PageKind;
  slug: string;
  name: string;
  mention_count: string | number;
  summary: string | null;
  updated_at: Date | string;
  score?: number;
}

const PAGE_COLUMNS = `p.kind, p.slug, p.name, p.updated_at,
  (select count(*) from wiki_mentions m where m.drive_id = p.drive_id and m.kind = p.kind and m.slug = p.slug) as mention_count,
  (select left(m.text, 300) from wiki_mentions m left join artifacts a on a.id = m.source_art_id
    where m.drive_id = p.drive_id and m.kind = p.kind and m.slug = p.slug order by a.path collate "C" nulls last limit 1) as summary`;
const HAS_SOURCES = `exists (select 1 from wiki_mentions m where m.drive_id = p.drive_id and m.kind = p.kind and m.slug = p.slug)`;

function infoOf(rc: RequestContext, r: PageRow): WikiPageInfo {
  const path = pagePath(r.kind, r.slug);
  return {
    kind: r.kind,
    slug: r.slug,
    name: r.name,
    path,
    url: `${rc.app.config.http.webUrl}/${rc.driveId}/${path}`,
    mention_count: Number(r.mention_count),
    summary: r.summary ?? '',
    updated_at: new Date(r.updated_at).toISOString(),
  };
}

/** Pages by kind then slug, keyset-paged. */
export async function listWikiPages(
  rc: RequestContext,
  q: { kind?: PageKind; prefix?: string; cursor?: string; limit: number },
) {
  await checkWikiAvailable(rc);
  const where = ['p.drive_id = ?', HAS_SOURCES];
  const params: unknown[] = [rc.driveId];
  if (q.kind) (where.push('p.kind = ?'), params.push(q.kind));
  if (q.prefix) (where.push(`starts_with(p.slug, ?)`), params.push(q.prefix));
  if (q.cursor) {
    const c = decodeCursor(
      q.cursor,
      (v): v is { k: string; s: string } =>
        typeof (v as { k?: unknown }).k === 'string' && typeof (v as { s?: unknown }).s === 'string',
    );
    where.push('(p.kind, p.slug) > (?, ? collate "C")');
    params.push(c.k, c.s);
  }
  params.push(q.limit + 1);
  const found = await rows<PageRow>(
    rc.app.orm.em.fork(),
    `select ${PAGE_COLUMNS} from wiki_pages p where ${where.join(' and ')}
    order by p.kind, p.slug collate "C" limit ?`,
    params,
  );
  const page = found.slice(0, q.limit);
  const last = page[page.length - 1];
  return {
    items: page.map((r) => infoOf(rc, r)),
    next_cursor: found.length > q.limit && last ? encodeCursor({ k: last.kind, s: last.slug }) : null,
  };
}

/** Pages whose name or mentions match the words of `q` (English stemming; a name containing `q` ranks first). */
export async function searchWiki(
  rc: RequestContext,
  q: { q: string; kind?: PageKind; limit: number },
): Promise<WikiPageInfo[]> {
  await checkWikiAvailable(rc);
  const like = `%${q.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const found = await rows<PageRow>(
    rc.app.orm.em.fork(),
    `with query as (select websearch_to_tsquery('english', ?) as tsq)
     select ${PAGE_COLUMNS}, s.score from wiki_pages p cross join query
       left join lateral (
         select max(ts_rank(to_tsvector('english', m.name || ' ' || m.text), query.tsq)) as score from wiki_mentions m
          where m.drive_id = p.drive_id and m.kind = p.kind and m.slug = p.slug and to_tsvector('english', m.name || ' ' || m.text) @@ query.tsq
       ) s on true
      where p.drive_id = ? and ${HAS_SOURCES} and (s.score is not null or p.name ilike ? escape '\\')${q.kind ? ' and p.kind = ?' : ''}
      order by (p.name ilike ? escape '\\') desc, s.score desc nulls last, p.slug limit ?`,
    [q.q, rc.driveId, like, ...(q.kind ? [q.kind] : []), like, q.limit],
  );
  return found.map((r) => infoOf(rc, r));
}

/** The pages most sources mention (overview's top_entities / top_concepts). */
export async function topWikiPages(rc: RequestContext, kind: PageKind, limit: number): Promise<WikiPageInfo[]> {
  const found = await rows<PageRow>(
    rc.app.orm.em.fork(),
    `select * from (select ${PAGE_COLUMNS} from wiki_pages p where p.drive_id = ? and p.kind = ?) t
      where mention_count > 0 order by mention_count desc, slug limit ?`,
    [rc.driveId, kind, limit],
  );
  return found.map((r) => infoOf(rc, r));
}
