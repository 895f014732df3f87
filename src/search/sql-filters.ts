import type { FindFilters, SearchFilters } from './engine.js';

/**
 * The PostgreSQL engine's WHERE builder: conditions and their `$n` parameters, appended together, so a query's text
 * and values never drift apart. Documents are aliased `d`, passages `p`.
 */
export interface Where {
  sql: string[];
  params: unknown[];
}

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

export function addParam(w: Where, value: unknown): string {
  w.params.push(value);
  return `$${w.params.length}`;
}

/** Filters shared by search and find, on the documents alias `d`. */
export function documentFilters(w: Where, f: SearchFilters) {
  if (f.labels?.length) w.sql.push(`d.labels @> ${addParam(w, f.labels)}::text[]`);
  if (f.fileType) w.sql.push(`d.file_type = ${addParam(w, f.fileType)}`);
  if (f.prefix) w.sql.push(`d.path like ${addParam(w, `${escapeLike(f.prefix)}%`)}`);
  if (f.updatedAfter) w.sql.push(`d.updated_at >= ${addParam(w, f.updatedAfter)}`);
  if (f.updatedBefore) w.sql.push(`d.updated_at <= ${addParam(w, f.updatedBefore)}`);
}

/** Find's `_wiki/` exclusion, on the documents alias `d`. */
export function excludedPrefixFilter(w: Where, f: FindFilters) {
  if (f.excludePrefix) w.sql.push(`d.path not like ${addParam(w, `${escapeLike(f.excludePrefix)}%`)}`);
}

/** Find's modality filter, on the passages alias `p`. */
export function modalityFilter(w: Where, f: FindFilters) {
  if (f.modalities?.length) w.sql.push(`p.modality = any(${addParam(w, f.modalities)}::text[])`);
}

export function passageFilters(w: Where, f: FindFilters) {
  documentFilters(w, f);
  modalityFilter(w, f);
  excludedPrefixFilter(w, f);
}
