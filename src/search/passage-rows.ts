import type { Passage, PassageSet } from './engine.js';

/**
 * The rows of search_passages as the PostgreSQL engine writes them: one array per column, for a single
 * `insert … select from unnest(…)` (docs/decisions/write-path.md, Ingestion). The semantic leg's signature (one bit per
 * dimension, 1 where the component is positive) and float4 bytes (big-endian, what the rerank and the graph read) are
 * computed here from the vector the worker holds: generated in PostgreSQL they cost a fifth of the insert. The bytes
 * are the passage's only copy of its vector (migration passage_vector_once).
 */
export interface PassageColumns {
  driveId: string[];
  artId: string[];
  ord: number[];
  versionNumber: number[];
  modality: string[];
  text: string[];
  charStart: (number | null)[];
  charEnd: (number | null)[];
  pageStart: (number | null)[];
  pageEnd: (number | null)[];
  timeStartMs: (number | null)[];
  timeEndMs: (number | null)[];
  /** The document unit as JSON text, or null. */
  anchor: (string | null)[];
  /** bit varying literals ('0110…'). */
  signature: (string | null)[];
  embeddingBytes: (Buffer | null)[];
  /** Characters (code points) of `text` that are the passage's own: the lexical index covers only these. */
  ownChars: (number | null)[];
  /** Words of the own stretch: BM25's length of the row. */
  lexLen: number[];
}

/** PostgreSQL text cannot hold NUL. */
export function stripNul(s: string): string {
  return s.includes('\u0000') ? s.replaceAll('\u0000', '') : s;
}

/** One bit per component: 1 where it is positive (what the migration search_signatures generated). */
export function signatureOf(vector: number[]): string {
  let bits = '';
  for (const x of vector) bits += x > 0 ? '1' : '0';
  return bits;
}

/** The vector as packed big-endian float4 (what search_vector_bytes generated). */
export function vectorBytes(vector: number[]): Buffer {
  const out = Buffer.allocUnsafe(vector.length * 4);
  vector.forEach((x, i) => out.writeFloatBE(x, i * 4));
  return out;
}

const COLUMNS = `drive_id, art_id, ord, version_number, modality, text, char_start, char_end, page_start, page_end,
  time_start_ms, time_end_ms, anchor, signature, embedding_bytes, own_chars, lex_len`;

/** The insert of `passageColumns`' arrays ($1…$17, in PassageColumns' order). */
export const INSERT_PASSAGES_SQL = `insert into search_passages (${COLUMNS})
  select t.drive_id, t.art_id, t.ord, t.version_number, t.modality, t.text, t.char_start, t.char_end, t.page_start,
         t.page_end, t.time_start_ms, t.time_end_ms, t.anchor::jsonb, t.signature::bit varying, t.embedding_bytes,
         t.own_chars, t.lex_len
    from unnest($1::text[], $2::text[], $3::int[], $4::int[], $5::text[], $6::text[], $7::int[], $8::int[], $9::int[],
                $10::int[], $11::int[], $12::int[], $13::text[], $14::text[], $15::bytea[], $16::int[], $17::int[])
      as t(${COLUMNS})`;

/** Words as BM25 counts a row's length (close to what the text search parser keeps). */
export function wordCount(text: string): number {
  let n = 0;
  for (const _ of text.matchAll(/[\p{L}\p{N}]+/gu)) n++;
  return n;
}

/**
 * The passage's own stretch: from its start to where the next passage of the set starts (consecutive passages overlap
 * by ~400 tokens), in UTF-16 units of `text`; the whole text when spans are not character offsets (pages, times).
 */
export function ownStretch(p: Passage, next: Passage | undefined): number {
  if (!next || p.charStart === undefined || next.charStart === undefined) return p.text.length;
  const own = next.charStart - p.charStart;
  return own > 0 && own < p.text.length ? own : p.text.length;
}

/** Code points in the first `units` UTF-16 units of `text` (PostgreSQL's left() counts characters). */
function codePoints(text: string, units: number): number {
  let n = units;
  for (let i = 0; i < units; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < units) {
      n--;
      i++;
    }
  }
  return n;
}

export function passageColumns(sets: PassageSet[]): PassageColumns {
  const c: PassageColumns = {
    driveId: [],
    artId: [],
    ord: [],
    versionNumber: [],
    modality: [],
    text: [],
    charStart: [],
    charEnd: [],
    pageStart: [],
    pageEnd: [],
    timeStartMs: [],
    timeEndMs: [],
    anchor: [],
    signature: [],
    embeddingBytes: [],
    ownChars: [],
    lexLen: [],
  };
  for (const s of sets) {
    const byOrd = [...s.passages].sort((a, b) => a.ord - b.ord);
    byOrd.forEach((p, i) => push(c, s, p, ownStretch(p, byOrd[i + 1])));
  }
  return c;
}

function push(c: PassageColumns, s: PassageSet, p: Passage, ownUnits: number) {
  c.driveId.push(s.driveId);
  c.artId.push(s.artId);
  c.ord.push(p.ord);
  c.versionNumber.push(s.versionNumber);
  c.modality.push(p.modality);
  const text = stripNul(p.text);
  c.text.push(text);
  c.charStart.push(p.charStart ?? null);
  c.charEnd.push(p.charEnd ?? null);
  c.pageStart.push(p.pageStart ?? null);
  c.pageEnd.push(p.pageEnd ?? null);
  c.timeStartMs.push(p.timeStartMs ?? null);
  c.timeEndMs.push(p.timeEndMs ?? null);
  c.anchor.push(p.anchor ? JSON.stringify(p.anchor) : null);
  const v = p.embedding;
  c.signature.push(v ? signatureOf(v) : null);
  c.embeddingBytes.push(v ? vectorBytes(v) : null);
  const units = Math.min(ownUnits, text.length);
  c.ownChars.push(units === text.length ? null : codePoints(text, units));
  c.lexLen.push(wordCount(units === text.length ? text : text.slice(0, units)));
}

/** The columns' arrays as the statement's parameters, `from`…`to` rows. */
export function passageParams(c: PassageColumns, from: number, to: number): unknown[] {
  return Object.values(c).map((column: unknown[]) => column.slice(from, to));
}
