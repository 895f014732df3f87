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
  /** bit varying literals ('0110…'). */
  signature: (string | null)[];
  embeddingBytes: (Buffer | null)[];
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
  time_start_ms, time_end_ms, signature, embedding_bytes`;

/** The insert of `passageColumns`' arrays ($1…$14, in PassageColumns' order). */
export const INSERT_PASSAGES_SQL = `insert into search_passages (${COLUMNS})
  select t.drive_id, t.art_id, t.ord, t.version_number, t.modality, t.text, t.char_start, t.char_end, t.page_start,
         t.page_end, t.time_start_ms, t.time_end_ms, t.signature::bit varying, t.embedding_bytes
    from unnest($1::text[], $2::text[], $3::int[], $4::int[], $5::text[], $6::text[], $7::int[], $8::int[], $9::int[],
                $10::int[], $11::int[], $12::int[], $13::text[], $14::bytea[]) as t(${COLUMNS})`;

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
    signature: [],
    embeddingBytes: [],
  };
  for (const s of sets) for (const p of s.passages) push(c, s, p);
  return c;
}

function push(c: PassageColumns, s: PassageSet, p: Passage) {
  c.driveId.push(s.driveId);
  c.artId.push(s.artId);
  c.ord.push(p.ord);
  c.versionNumber.push(s.versionNumber);
  c.modality.push(p.modality);
  c.text.push(stripNul(p.text));
  c.charStart.push(p.charStart ?? null);
  c.charEnd.push(p.charEnd ?? null);
  c.pageStart.push(p.pageStart ?? null);
  c.pageEnd.push(p.pageEnd ?? null);
  c.timeStartMs.push(p.timeStartMs ?? null);
  c.timeEndMs.push(p.timeEndMs ?? null);
  const v = p.embedding;
  c.signature.push(v ? signatureOf(v) : null);
  c.embeddingBytes.push(v ? vectorBytes(v) : null);
}

/** The columns' arrays as the statement's parameters, `from`…`to` rows. */
export function passageParams(c: PassageColumns, from: number, to: number): unknown[] {
  return Object.values(c).map((column: unknown[]) => column.slice(from, to));
}
