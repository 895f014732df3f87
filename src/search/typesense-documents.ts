import {
  type ArtifactPatch,
  type FindFilters,
  type PassageHit,
  type SearchDocument,
  type SearchHit,
} from './engine.js';
import type { Atom } from './query-syntax.js';

/**
 * How the Typesense engine (src/search/typesense-engine.ts) writes a drive's documents and passages as Typesense
 * documents, renders its filters and query atoms, and reads hits back: the pure half of the engine.
 */
export type Doc = Record<string, unknown>;

export const PASSAGE_SPAN_FIELDS = [
  'char_start',
  'char_end',
  'page_start',
  'page_end',
  'time_start_ms',
  'time_end_ms',
] as const;

/** Every leading substring of the path: lets `prefix` be an exact filter (`path_prefixes:=…`). */
export function pathPrefixes(path: string): string[] {
  return Array.from({ length: path.length }, (_, i) => path.slice(0, i + 1));
}

export const pathWords = (p: string) => p.replace(/[/._-]+/g, ' ');
export const quote = (v: string) => `\`${v.replaceAll('`', '')}\``;
export const renderAtom = (a: Atom) => (a.phrase.length > 1 ? `"${a.phrase.join(' ')}"` : a.phrase[0]!);

function metadataText(metadata: Record<string, unknown>): string {
  const out: string[] = [];
  const walk = (v: unknown, key?: string) => {
    if (key) out.push(key);
    if (v === null || v === undefined) return;
    if (typeof v === 'object')
      for (const [k, x] of Object.entries(v as object)) walk(x, Array.isArray(v) ? undefined : k);
    // eslint-disable-next-line @typescript-eslint/no-base-to-string -- objects were walked above; v is a scalar here
    else if (typeof v !== 'boolean') out.push(String(v));
  };
  walk(metadata);
  return out.join(' ');
}

export function documentFields(doc: SearchDocument | (ArtifactPatch & { path?: string })): Doc {
  const f: Doc = {};
  if (doc.path !== undefined)
    Object.assign(f, { path: doc.path, path_words: pathWords(doc.path), path_prefixes: pathPrefixes(doc.path) });
  if (doc.labels !== undefined) Object.assign(f, { labels: doc.labels, labels_text: doc.labels.join(' ') });
  if (doc.metadata !== undefined) f.metadata_text = metadataText(doc.metadata);
  if (doc.updatedAt !== undefined) f.updated_at = doc.updatedAt.getTime();
  return f;
}

export function filterOf(driveId: string, f: FindFilters): string {
  const parts = [`drive_id:=${quote(driveId)}`];
  for (const label of f.labels ?? []) parts.push(`labels:=${quote(label)}`);
  if (f.fileType) parts.push(`file_type:=${quote(f.fileType)}`);
  if (f.prefix) parts.push(`path_prefixes:=${quote(f.prefix)}`);
  if (f.updatedAfter) parts.push(`updated_at:>=${f.updatedAfter.getTime()}`);
  if (f.updatedBefore) parts.push(`updated_at:<=${f.updatedBefore.getTime()}`);
  if (f.modalities?.length) parts.push(`modality:=[${f.modalities.map(quote).join(',')}]`);
  if (f.excludePrefix) parts.push(`path_prefixes:!=${quote(f.excludePrefix)}`);
  return parts.join(' && ');
}

export function hitOf(d: Doc): Omit<SearchHit, 'snippet' | 'score'> {
  return {
    artId: String(d.art_id),
    driveId: String(d.drive_id),
    path: String(d.path),
    contentType: String(d.content_type),
    fileType: String(d.file_type),
    labels: (d.labels as string[]) ?? [],
    updatedAt: new Date(Number(d.updated_at)),
    versionNumber: Number(d.version_number),
  };
}

export function passageHitOf(d: Doc, score: number, snippet: string): PassageHit {
  const hit = {
    ...hitOf(d),
    snippet,
    score,
    modality: d.modality,
    ord: Number(d.ord),
    text: String(d.text),
  } as PassageHit;
  const camel = {
    char_start: 'charStart',
    char_end: 'charEnd',
    page_start: 'pageStart',
    page_end: 'pageEnd',
    time_start_ms: 'timeStartMs',
    time_end_ms: 'timeEndMs',
  } as const;
  for (const k of PASSAGE_SPAN_FIELDS) if (typeof d[k] === 'number') hit[camel[k]] = d[k] as number;
  if (typeof d.anchor === 'string') hit.anchor = JSON.parse(d.anchor) as PassageHit['anchor'];
  return hit;
}
