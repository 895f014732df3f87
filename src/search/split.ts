import { getEncoding, type Tiktoken } from 'js-tiktoken';
import cl100k from 'js-tiktoken/ranks/cl100k_base';
import type { Passage } from './engine.js';
import type { Extracted } from '../lib/extract.js';
import { pieceAt } from '../lib/line-starts.js';

/**
 * Passage splitting. Chunks are measured in cl100k_base tokens (the tokenizer of the
 * text-embedding-3 models): 1,200 tokens with a 400-token overlap (SPEC 8), so consecutive
 * passages share ~400 tokens and each adds ~800 new ones. Offsets are kept exactly:
 * `text.slice(charStart, charEnd) === passage.text` on the extracted text (UTF-16 code units).
 *
 * Tokens are counted once: the text is cut into the tokenizer's own pre-tokens (its regex; BPE never
 * merges across them, so a text's count is the sum of its pieces' counts), each piece counted once
 * (common words from a cache), and chunks are chosen on the running sum. The cost is linear in the
 * text; the splitter it replaces re-counted every piece and every merge (docs/decisions/search.md,
 * "Ingestion").
 */
export const CHUNK_TOKENS = 1200;
export const OVERLAP_TOKENS = 400;

let encoding: Tiktoken | undefined;
export function countTokens(text: string): number {
  encoding ??= getEncoding('cl100k_base');
  return encoding.encode(text, [], []).length;
}

const pieceCounts = new Map<string, number>();
function countPiece(piece: string): number {
  let n = pieceCounts.get(piece);
  if (n === undefined) {
    n = countTokens(piece);
    // Bounded: a cache of words, not of texts.
    if (pieceCounts.size >= 200_000) pieceCounts.clear();
    pieceCounts.set(piece, n);
  }
  return n;
}

/**
 * Gives the event loop a turn every 50 ms: splitting megabytes is still CPU, and the activity's
 * heartbeat timer must fire meanwhile (a worker that stops heartbeating is presumed dead).
 */
let lastTurn = Date.now();
async function yieldSometimes(): Promise<void> {
  if (Date.now() - lastTurn > 50) {
    await new Promise((r) => setImmediate(r));
    lastTurn = Date.now();
  }
}

/** Piece boundaries of `text` (offsets, 0 first, text.length last) and the tokens before each. */
async function tokenBoundaries(text: string): Promise<{ at: number[]; tokensBefore: number[] }> {
  const at = [0];
  const tokensBefore = [0];
  let tokens = 0;
  // One regex per call: its lastIndex is the position, and splits of several artifacts interleave at each yield.
  const preToken = new RegExp(cl100k.pat_str, 'gu');
  for (let m = preToken.exec(text), i = 0; m; m = preToken.exec(text), i++) {
    if (m[0].length === 0) {
      preToken.lastIndex++;
      continue;
    }
    const from = at.at(-1)!;
    // The regex covers every character; a gap would still be counted.
    if (m.index > from) tokens += countTokens(text.slice(from, m.index));
    tokens += countPiece(m[0]);
    at.push(m.index + m[0].length);
    tokensBefore.push(tokens);
    if ((i & 1023) === 0) await yieldSometimes();
  }
  if (at.at(-1)! < text.length) {
    tokensBefore.push(tokens + countTokens(text.slice(at.at(-1)!)));
    at.push(text.length);
  }
  return { at, tokensBefore };
}

/** How good a cut is: 3 after a blank line, 2 after a line break, 1 at a space, 0 inside a word. */
function cutClass(text: string, offset: number): number {
  if (offset >= text.length) return 3;
  const before = text[offset - 1];
  if (before === '\n') return /\n[ \t\r]*$/.test(text.slice(Math.max(0, offset - 8), offset - 1)) ? 3 : 2;
  return /\s/.test(before ?? '') || /\s/.test(text[offset]!) ? 1 : 0;
}

/**
 * Among boundaries `candidates` (indices, in order), the best class whose pick keeps `enough` (the
 * chunk at least 3/4 of its target, the overlap half), picking the last (chunk ends) or first (overlap starts).
 */
function bestCut(
  text: string,
  at: number[],
  candidates: number[],
  pick: 'first' | 'last',
  enough: (i: number) => boolean,
) {
  for (let cls = 3; cls > 0; cls--) {
    const ok = candidates.filter((i) => cutClass(text, at[i]!) >= cls && enough(i));
    if (ok.length) return pick === 'first' ? ok[0]! : ok.at(-1)!;
  }
  return pick === 'first' ? candidates[0]! : candidates.at(-1)!;
}

export interface Span {
  start: number;
  end: number;
}

/** Splits text into overlapping chunks and returns each chunk's exact [start, end) in `text`. */
export async function splitWithOffsets(
  text: string,
  opts: { chunkTokens?: number; overlapTokens?: number } = {},
): Promise<Span[]> {
  const trimmed = text.trim();
  if (!trimmed) return [];
  const chunkTokens = opts.chunkTokens ?? CHUNK_TOKENS;
  const overlapTokens = opts.overlapTokens ?? OVERLAP_TOKENS;
  // Most artifacts fit in one chunk: a token covers at least one UTF-8 byte, so a text of at most
  // chunkTokens bytes fits without counting.
  const fits =
    Buffer.byteLength(trimmed) <= chunkTokens ||
    (trimmed.length <= chunkTokens * 8 && countTokens(trimmed) <= chunkTokens);
  if (fits) {
    const start = text.indexOf(trimmed);
    return [{ start, end: start + trimmed.length }];
  }
  const { at, tokensBefore } = await tokenBoundaries(text);
  const last = at.length - 1;
  const spans: Span[] = [];
  const tokensBetween = (a: number, b: number) => tokensBefore[b]! - tokensBefore[a]!;
  for (let s = 0; ;) {
    let maxEnd = s + 1;
    while (maxEnd < last && tokensBetween(s, maxEnd + 1) <= chunkTokens) maxEnd++;
    const ends = Array.from({ length: maxEnd - s }, (_, k) => s + 1 + k);
    const e =
      maxEnd === last ? last : bestCut(text, at, ends, 'last', (i) => tokensBetween(s, i) >= (chunkTokens * 3) / 4);
    pushTrimmed(text, at[s]!, at[e]!, spans);
    if (e === last) break;
    const starts: number[] = [];
    for (let b = e - 1; b > s && tokensBetween(b, e) <= overlapTokens; b--) starts.push(b);
    starts.reverse();
    s = starts.length ? bestCut(text, at, starts, 'first', (i) => tokensBetween(i, e) >= overlapTokens / 2) : e;
    await yieldSometimes();
  }
  return spans;
}

/** Records text[start, end) without its surrounding whitespace (chunks are trimmed, as before). */
function pushTrimmed(text: string, start: number, end: number, spans: Span[]) {
  while (start < end && /\s/.test(text[start]!)) start++;
  while (end > start && /\s/.test(text[end - 1]!)) end--;
  if (end > start) spans.push({ start, end });
}

/** Joins segments with a separator and records where each starts in the joined text. */
function joinSegments(segments: string[], separator: string): { text: string; starts: number[] } {
  const starts: number[] = [];
  let text = '';
  segments.forEach((s, i) => {
    if (i > 0) text += separator;
    starts.push(text.length);
    text += s;
  });
  return { text, starts };
}

/** Passages (without embeddings) of an extracted artifact, with the span pair of its modality. */
export async function passagesOf(extracted: Extracted): Promise<Passage[]> {
  if (extracted.kind === 'none') return [];
  if (extracted.kind === 'text') {
    const spans = await splitWithOffsets(extracted.text);
    return spans.map((s, ord) => ({
      ord,
      text: extracted.text.slice(s.start, s.end),
      modality: extracted.modality,
      charStart: s.start,
      charEnd: s.end,
      embedding: null,
    }));
  }
  if (extracted.kind === 'pdf') {
    const { text, starts } = joinSegments(extracted.pages, '\n\n');
    const spans = await splitWithOffsets(text);
    return spans.map((s, ord) => ({
      ord,
      text: text.slice(s.start, s.end),
      modality: 'pdf',
      pageStart: pieceAt(starts, s.start) + 1,
      pageEnd: pieceAt(starts, s.end - 1) + 1,
      embedding: null,
    }));
  }
  const { text, starts } = joinSegments(
    extracted.cues.map((c) => c.text),
    '\n',
  );
  const spans = await splitWithOffsets(text);
  return spans.map((s, ord) => ({
    ord,
    text: text.slice(s.start, s.end),
    modality: 'video',
    timeStartMs: extracted.cues[pieceAt(starts, s.start)]!.startMs,
    timeEndMs: extracted.cues[pieceAt(starts, s.end - 1)]!.endMs,
    embedding: null,
  }));
}
