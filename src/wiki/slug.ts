import { createHash } from 'node:crypto';

/** Page kinds and where their pages live (REFERENCE §1: `_wiki/entities/{slug}.md`, `_wiki/concepts/{slug}.md`). */
export type PageKind = 'entity' | 'concept';

export const WIKI_ROOT = '_wiki/';
const FOLDERS: Record<PageKind, string> = { entity: '_wiki/entities/', concept: '_wiki/concepts/' };

const MAX_SLUG = 80;

/**
 * A name's slug: accents folded (NFKD, combining marks dropped), lower case, every run of other
 * characters one '-', at most 80 characters. Names with no Latin letter or digit left ("東京")
 * get `n-` + 10 hex of the name's SHA-256, so they still have a stable, valid path.
 */
export function slugOf(name: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, MAX_SLUG)
    .replace(/-+$/, '');
  return slug || `n-${createHash('sha256').update(name.trim().toLowerCase()).digest('hex').slice(0, 10)}`;
}

export const pagePath = (kind: PageKind, slug: string) => `${FOLDERS[kind]}${slug}.md`;

/** The page a `_wiki/` path names, or null for any other path. */
export function pageOfPath(path: string): { kind: PageKind; slug: string } | null {
  for (const kind of ['entity', 'concept'] as const) {
    const folder = FOLDERS[kind];
    if (path.startsWith(folder) && path.endsWith('.md')) return { kind, slug: path.slice(folder.length, -3) };
  }
  return null;
}
