import { AppError } from '../lib/errors.js';
import { pathForName } from './file-names.js';

/** Input rules of spec 4.1 and 8 for artifact writes, each failing with its named code. */

const PATH_RE = /^[A-Za-z0-9_./-]+$/;
const LABEL_RE = /^[a-z0-9_-]+$/;
export const MAX_LABELS = 16;
export const VISIBILITIES = ['private', 'public'] as const;
export type Visibility = (typeof VISIBILITIES)[number];

const isSpecPath = (path: string) =>
  path.length >= 1 &&
  path.length <= 256 &&
  PATH_RE.test(path) &&
  !path.startsWith('/') &&
  !path.endsWith('/') &&
  // '.' too: `a/./b` would name a second path for a/b, which the web pages' URLs cannot open.
  !path.split('/').some((seg) => seg === '..' || seg === '.' || seg === '');

/**
 * A path that breaks spec 8 is refused with the path the name rule maps it to (`suggested_path`, when that one is
 * valid), so a client that sent a person's name learns the path to send and the header that keeps the name.
 */
export function checkPath(path: string, what = 'path'): string {
  if (isSpecPath(path)) return path;
  const suggested = pathForName(path).path;
  const hint = isSpecPath(suggested)
    ? `; suggested path: ${suggested} (send the original name as X-Drive-Filename, or MCP upload's filename, to keep it)`
    : '';
  throw new AppError(
    'INVALID_PATH',
    `${what} must be 1-256 chars of [A-Za-z0-9_./-], with no '.' or '..' or empty segment and no leading or trailing slash${hint}`,
    hint ? { suggested_path: suggested } : {},
  );
}

export const isWikiPath = (path: string) => path === '_wiki' || path.startsWith('_wiki/');

export function checkNotWiki(path: string): void {
  if (isWikiPath(path)) throw new AppError('WIKI_RESERVED', '_wiki/ is reserved for system-generated wiki pages');
}

/** Labels: lowercase [a-z0-9_-]+, at most 64 chars each, at most 16 (duplicates fold). */
export function checkLabels(list: string[]): string[] {
  const labels = list.map((l) => l.trim()).filter((l) => l.length > 0);
  for (const l of labels) {
    if (!LABEL_RE.test(l) || l.length > 64)
      throw new AppError('INVALID_LABELS', `label '${l}' must be lowercase [a-z0-9_-]+, at most 64 chars`);
  }
  const unique = [...new Set(labels)];
  if (unique.length > MAX_LABELS) throw new AppError('INVALID_LABELS', `at most ${MAX_LABELS} labels per artifact`);
  return unique;
}

/**
 * Metadata bounds (docs/decisions.md, "Bounded work on every door"): it is stored on the artifact row
 * and returned in every record and listing, so it is capped at 16 KB serialised and 256 keys at any depth.
 */
export const METADATA_MAX_BYTES = 16 * 1024;
export const METADATA_MAX_KEYS = 256;

function keyCount(v: unknown): number {
  if (v === null || typeof v !== 'object') return 0;
  if (Array.isArray(v)) return v.reduce((n: number, x) => n + keyCount(x), 0);
  return Object.entries(v).reduce((n, [, x]) => n + 1 + keyCount(x), 0);
}

export function checkMetadata(v: unknown): Record<string, unknown> {
  if (!v || typeof v !== 'object' || Array.isArray(v))
    throw new AppError('INVALID_METADATA', 'X-Drive-Metadata must be a JSON object');
  const bytes = Buffer.byteLength(JSON.stringify(v));
  if (bytes > METADATA_MAX_BYTES)
    throw new AppError(
      'METADATA_TOO_LARGE',
      `metadata is ${bytes} bytes serialised, over the ${METADATA_MAX_BYTES}-byte limit; nothing was written`,
    );
  const keys = keyCount(v);
  if (keys > METADATA_MAX_KEYS)
    throw new AppError(
      'METADATA_TOO_LARGE',
      `metadata has ${keys} keys, over the ${METADATA_MAX_KEYS}-key limit; nothing was written`,
    );
  const problem = unstorableJson(v);
  if (problem) throw new AppError('INVALID_METADATA', `metadata ${UNSTORABLE_JSON_MESSAGE[problem]}`);
  return v as Record<string, unknown>;
}

export interface SourceRef {
  type: string;
  id: string;
  metadata?: Record<string, unknown> | null;
}
export interface Source {
  refs: SourceRef[];
}

export function checkSource(v: unknown): Source {
  const bad = () =>
    new AppError('INVALID_SOURCE', 'source must be {"refs": [{"type": string, "id": string, "metadata"?: object}]}');
  if (!v || typeof v !== 'object' || !Array.isArray((v as Source).refs)) throw bad();
  const refs = (v as Source).refs.map((r) => {
    if (!r || typeof r !== 'object') throw bad();
    const { type, id, metadata } = r as SourceRef;
    if (typeof type !== 'string' || typeof id !== 'string' || !type || type.length > 64 || id.length > 256) throw bad();
    if (metadata != null && (typeof metadata !== 'object' || Array.isArray(metadata))) throw bad();
    return metadata == null ? { type, id } : { type, id, metadata };
  });
  if (refs.length > 64 || unstorableJson(refs)) throw bad();
  return { refs };
}

export function checkVisibility(value: string): Visibility {
  if (!(VISIBILITIES as readonly string[]).includes(value))
    throw new AppError('BAD_VISIBILITY', `visibility must be one of ${VISIBILITIES.join(', ')}`);
  return value as Visibility;
}

/** The caller-supplied attribution name (X-Drive-Actor, actor_name): at most 64 chars; empty is none. */
export function checkActorName(name: string | undefined | null): string | null {
  if (name === undefined || name === null || name === '') return null;
  if (name.length > 64) throw new AppError('INVALID_ACTOR', 'X-Drive-Actor is at most 64 characters');
  return name;
}

/** A change summary: at most 1000 chars; empty is none. */
export function checkChangeSummary(summary: string | undefined | null): string | null {
  if (summary !== undefined && summary !== null && summary.length > 1000) {
    throw new AppError('INVALID_CHANGE_SUMMARY', 'X-Drive-Change-Summary is at most 1000 characters');
  }
  return summary || null;
}

export function preconditionFailed(current: number | null) {
  return new AppError(
    'PRECONDITION_FAILED',
    current === null
      ? 'If-Match sent but no live artifact exists'
      : `If-Match does not match current version ${current}`,
    {
      current_version: current,
    },
  );
}

const EXT_TYPES: Record<string, string> = {
  md: 'markdown',
  markdown: 'markdown',
  mdx: 'markdown',
  png: 'image',
  jpg: 'image',
  jpeg: 'image',
  gif: 'image',
  webp: 'image',
  svg: 'image',
  bmp: 'image',
  tif: 'image',
  tiff: 'image',
  ico: 'image',
  avif: 'image',
  pdf: 'pdf',
  html: 'html',
  htm: 'html',
  json: 'json',
  jsonl: 'data',
  ndjson: 'data',
  csv: 'data',
  tsv: 'data',
  parquet: 'data',
  xlsx: 'data',
  xls: 'data',
  yaml: 'data',
  yml: 'data',
  xml: 'data',
  toml: 'data',
  ts: 'code',
  tsx: 'code',
  js: 'code',
  jsx: 'code',
  mjs: 'code',
  cjs: 'code',
  py: 'code',
  rb: 'code',
  go: 'code',
  rs: 'code',
  java: 'code',
  kt: 'code',
  c: 'code',
  h: 'code',
  cpp: 'code',
  hpp: 'code',
  cs: 'code',
  php: 'code',
  sh: 'code',
  sql: 'code',
  swift: 'code',
  scala: 'code',
  tex: 'code',
  css: 'code',
  lua: 'code',
  r: 'code',
  txt: 'text',
  text: 'text',
  log: 'text',
  rst: 'text',
};

/**
 * The file type family (REFERENCE: markdown | image | pdf | html | json | data | code | text | binary):
 * from the content type when it is specific, else from the path's extension, else binary.
 */
export function fileTypeOf(path: string, contentType: string): string {
  const ct = contentType.split(';')[0].trim().toLowerCase();
  if (ct === 'text/markdown') return 'markdown';
  if (ct.startsWith('image/')) return 'image';
  if (ct === 'application/pdf') return 'pdf';
  if (ct === 'text/html') return 'html';
  if (ct === 'application/json') return 'json';
  if (ct === 'text/csv' || ct === 'application/x-ndjson' || ct === 'text/tab-separated-values') return 'data';
  const base = path.slice(path.lastIndexOf('/') + 1);
  const ext = base.includes('.') ? base.slice(base.lastIndexOf('.') + 1).toLowerCase() : '';
  if (EXT_TYPES[ext]) return EXT_TYPES[ext];
  if (ct.startsWith('text/')) return 'text';
  return 'binary';
}

export const FILE_TYPES = ['markdown', 'image', 'pdf', 'html', 'json', 'data', 'code', 'text', 'binary'] as const;

/** True when any string (key or value) in a JSON value holds a NUL, which PostgreSQL text and jsonb cannot store. */
/**
 * JSON nested deeper than this is refused (400): deeper values were walked by no check, and nothing legitimate nests so
 * far.
 */
export const MAX_JSON_DEPTH = 64;

/**
 * Why parsed JSON cannot be stored: a NUL in any string or key (PostgreSQL text cannot hold it), or nesting past
 * MAX_JSON_DEPTH.
 */
export function unstorableJson(v: unknown, depth = 0): 'nul' | 'too_deep' | null {
  if (typeof v === 'string') return v.includes('\0') ? 'nul' : null;
  if (v === null || typeof v !== 'object') return null;
  if (depth >= MAX_JSON_DEPTH) return 'too_deep';
  for (const [k, x] of Array.isArray(v) ? v.entries() : Object.entries(v)) {
    if (typeof k === 'string' && k.includes('\0')) return 'nul';
    const problem = unstorableJson(x, depth + 1);
    if (problem) return problem;
  }
  return null;
}

export const UNSTORABLE_JSON_MESSAGE = {
  nul: 'contains a NUL character (\\u0000), which PostgreSQL cannot store',
  too_deep: `is nested deeper than ${MAX_JSON_DEPTH} levels`,
} as const;
