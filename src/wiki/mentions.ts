import type { AppContext } from '../platform/context.js';
import { rows, transaction, type Db } from '../db/sql.js';
import type { LlmIndex } from './llm-index.js';
import { slugOf, type PageKind } from './slug.js';

/**
 * What each source says about each page, one `wiki_mentions` row per (page, source), and the
 * `wiki_pages` rows those hang from. Every change to a page's mentions takes the page row's lock
 * (upsert or update, pages in a fixed order so two sources never deadlock) and marks it dirty in
 * the same transaction; the renderer (pages.ts) takes the same lock, so a page is rendered after
 * every committed change to it (docs/decisions.md, Wiki → Concurrency).
 */
export interface PageKey {
  kind: PageKind;
  slug: string;
}

export interface NewMention extends PageKey {
  name: string;
  type: string | null;
  text: string;
}

export const pageKeyOf = (p: PageKey) => `${p.kind}/${p.slug}`;
const byKey = (a: PageKey, b: PageKey) => (pageKeyOf(a) < pageKeyOf(b) ? -1 : pageKeyOf(a) > pageKeyOf(b) ? 1 : 0);

/** The mentions an llm_index gives, one per page: items whose names slug alike are merged. */
export function mentionsOf(index: LlmIndex): NewMention[] {
  const out = new Map<string, NewMention>();
  const add = (m: NewMention) => {
    const seen = out.get(pageKeyOf(m));
    if (!seen) out.set(pageKeyOf(m), m);
    else if (m.text && !seen.text.includes(m.text)) seen.text = `${seen.text} ${m.text}`.trim();
  };
  for (const e of index.entities)
    add({ kind: 'entity', slug: slugOf(e.name), name: e.name, type: e.type, text: e.description });
  for (const c of index.concepts)
    add({ kind: 'concept', slug: slugOf(c.name), name: c.name, type: null, text: c.description });
  return [...out.values()];
}

/** Locks and marks pages dirty, creating the missing ones (named after their first mention), in key order. */
async function touchPages(
  tx: Db,
  driveId: string,
  pages: { kind: PageKind; slug: string; name?: string }[],
): Promise<void> {
  for (const p of [...pages].sort(byKey)) {
    if (p.name !== undefined) {
      await rows(
        tx,
        `insert into wiki_pages (drive_id, kind, slug, name) values (?, ?, ?, ?)
        on conflict (drive_id, kind, slug) do update set dirty = true, updated_at = now()`,
        [driveId, p.kind, p.slug, p.name],
      );
    } else {
      await rows(
        tx,
        `update wiki_pages set dirty = true, updated_at = now() where drive_id = ? and kind = ? and slug = ?`,
        [driveId, p.kind, p.slug],
      );
    }
  }
}

/**
 * Replaces everything one source says (an overwrite replaces that source's contributions; an empty
 * list removes them, for a delete or purge). Returns the pages whose mentions changed, now dirty.
 */
export async function replaceSourceMentions(
  ctx: AppContext,
  driveId: string,
  artId: string,
  mentions: NewMention[],
): Promise<PageKey[]> {
  return transaction(ctx, async (tx) => {
    // One pass per source at a time, whatever the outbox's sharding does.
    await rows(tx, `select pg_advisory_xact_lock(hashtext(?))`, [`wiki-source:${artId}`]);
    const old = await rows<PageKey & { name: string; type: string | null; text: string }>(
      tx,
      `select kind, slug, name, type, text from wiki_mentions where drive_id = ? and source_art_id = ?`,
      [driveId, artId],
    );
    const same = (a: NewMention, b: NewMention) => a.name === b.name && a.type === b.type && a.text === b.text;
    const oldByKey = new Map(old.map((m) => [pageKeyOf(m), m]));
    const newByKey = new Map(mentions.map((m) => [pageKeyOf(m), m]));
    const changed = [
      ...mentions
        .filter((m) => {
          const o = oldByKey.get(pageKeyOf(m));
          return !o || !same(o, m);
        })
        .map((m) => ({ kind: m.kind, slug: m.slug, name: m.name })),
      ...old.filter((o) => !newByKey.has(pageKeyOf(o))).map((o) => ({ kind: o.kind, slug: o.slug })),
    ];
    if (!changed.length) return [];
    await touchPages(tx, driveId, changed);
    await rows(tx, `delete from wiki_mentions where drive_id = ? and source_art_id = ?`, [driveId, artId]);
    if (mentions.length) {
      await rows(
        tx,
        `insert into wiki_mentions (drive_id, kind, slug, source_art_id, name, type, text)
         select ?, m.kind, m.slug, ?, m.name, m.type, m.text from jsonb_to_recordset(?::jsonb) as m(kind text, slug text, name text, type text, text text)`,
        [driveId, artId, JSON.stringify(mentions)],
      );
    }
    return changed.map(({ kind, slug }) => ({ kind, slug }));
  });
}

/** Marks the pages one source contributes to dirty (its path changed: the links' text follows). */
export async function touchSourcePages(ctx: AppContext, driveId: string, artId: string): Promise<PageKey[]> {
  return transaction(ctx, async (tx) => {
    const pages = await rows<PageKey>(
      tx,
      `select kind, slug from wiki_mentions where drive_id = ? and source_art_id = ?`,
      [driveId, artId],
    );
    await touchPages(tx, driveId, pages);
    return pages;
  });
}

/** Pages of a drive still waiting to be rendered (a pass that stopped between its two steps leaves some). */
export async function dirtyPages(ctx: AppContext, driveId: string): Promise<PageKey[]> {
  return rows<PageKey>(
    ctx.orm.em.fork(),
    `select kind, slug from wiki_pages where drive_id = ? and dirty order by kind, slug limit 500`,
    [driveId],
  );
}

export interface MentionRow {
  source_art_id: string;
  name: string;
  type: string | null;
  text: string;
  /** The source's current path; null when it left (its removal is queued). */
  path: string | null;
}

/** A page's mentions with their sources' current paths, in path order (inside the page's transaction). */
export async function pageMentions(tx: Db, driveId: string, page: PageKey): Promise<MentionRow[]> {
  return rows<MentionRow>(
    tx,
    `select m.source_art_id, m.name, m.type, m.text, a.path from wiki_mentions m
       left join artifacts a on a.id = m.source_art_id and a.deleted_at is null
      where m.drive_id = ? and m.kind = ? and m.slug = ? order by a.path collate "C" nulls last, m.source_art_id`,
    [driveId, page.kind, page.slug],
  );
}
