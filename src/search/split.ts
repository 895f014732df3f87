import { RecursiveCharacterTextSplitter } from '@langchain/textsplitters';
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
 * LangChain's RecursiveCharacterTextSplitter measures every piece and every merge with its length
 * function, so that function must be cheap: it counts a text as the sum of its pre-tokens' counts
 * (the tokenizer's own regex; BPE never merges across pre-tokens, so the sum is exact), each
 * pre-token counted once and kept in a bounded cache. Common words cost a map lookup instead of a
 * BPE pass (docs/decisions/search.md, "Ingestion").
 */
export const CHUNK_TOKENS = 1200;
export const OVERLAP_TOKENS = 400;

let encoding: Tiktoken | undefined;
export function countTokens(text: string): number {
  encoding ??= getEncoding('cl100k_base');
  return encoding.encode(text, [], []).length;
}

/**
 * The longest text the tokenizer is handed at once. Its BPE is quadratic in a pre-token's length, and one pre-token can
 * be a whole file (a run of one letter, a base64 blob): 5,000 letters took 3.7 s and 20,000 took 31 s of the shared
 * worker. A longer piece is counted by slices of this length: at most one token more per cut (a merge the cut
 * prevents), so a chunk can only come out a little smaller, never over the limit.
 */
export const MAX_TOKENIZER_INPUT = 256;

function countBounded(text: string): number {
  if (text.length <= MAX_TOKENIZER_INPUT) return countTokens(text);
  let n = 0;
  for (let at = 0; at < text.length;) {
    let end = Math.min(text.length, at + MAX_TOKENIZER_INPUT);
    // Never between the two halves of a surrogate pair.
    const code = text.charCodeAt(end - 1);
    if (end < text.length && code >= 0xd800 && code <= 0xdbff) end--;
    n += countPiece(text.slice(at, end));
    at = end;
  }
  return n;
}

const pieceCounts = new Map<string, number>();
function countPiece(piece: string): number {
  let n = pieceCounts.get(piece);
  if (n === undefined) {
    n = countBounded(piece);
    // Bounded: a cache of words, not of texts.
    if (pieceCounts.size >= 200_000) pieceCounts.clear();
    pieceCounts.set(piece, n);
  }
  return n;
}

/** countTokens by pre-tokens: the same number, linear in the text, with common pieces from the cache. */
export function countTokensByPiece(text: string): number {
  let tokens = 0;
  let covered = 0;
  // A regex per call: its lastIndex is the position, and splits of several artifacts interleave at each yield.
  for (const m of text.matchAll(new RegExp(cl100k.pat_str, 'gu'))) {
    // The regex covers every character; a gap would still be counted.
    if (m.index > covered) tokens += countBounded(text.slice(covered, m.index));
    tokens += countPiece(m[0]);
    covered = m.index + m[0].length;
  }
  return covered < text.length ? tokens + countBounded(text.slice(covered)) : tokens;
}

/**
 * The splitter's length function, giving the event loop a turn every 50 ms: splitting megabytes is
 * still CPU, and the activity's heartbeat timer must fire meanwhile (a worker that stops
 * heartbeating is presumed dead and its work retried elsewhere).
 */
let lastTurn = Date.now();
async function countTokensYielding(text: string): Promise<number> {
  if (Date.now() - lastTurn > 50) {
    await new Promise((r) => setImmediate(r));
    lastTurn = Date.now();
  }
  return countTokensByPiece(text);
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
  // Most artifacts fit in one chunk: that chunk is the trimmed text, without the splitter's
  // recursive separator passes (milliseconds of token counting for a 1 KB note). A token covers
  // at least one UTF-8 byte, so a text of at most chunkTokens bytes fits without counting.
  const fits =
    Buffer.byteLength(trimmed) <= chunkTokens ||
    (trimmed.length <= chunkTokens * 8 && countTokensByPiece(trimmed) <= chunkTokens);
  if (fits) {
    const start = text.indexOf(trimmed);
    return [{ start, end: start + trimmed.length }];
  }
  // The splitter measures each piece several times (its size check, the merge, the overlap's shift): once is enough.
  const measured = new Map<string, number>();
  const splitter = new RecursiveCharacterTextSplitter({
    chunkSize: chunkTokens,
    chunkOverlap: overlapTokens,
    lengthFunction: async (piece: string) => {
      let n = measured.get(piece);
      if (n === undefined) measured.set(piece, (n = await countTokensYielding(piece)));
      return n;
    },
    keepSeparator: true,
  });
  const chunks = await splitter.splitText(text);
  const spans: Span[] = [];
  const textEnd = text.trimEnd().length;
  for (const [i, chunk] of chunks.entries()) spans.push(locate(chunk, spans.at(-1), i === chunks.length - 1));
  return spans;

  /**
   * Where a chunk stands: the splitter only cuts and trims, so every chunk is a substring, starting after the
   * previous chunk's start with at most `overlap` tokens of it (the splitter's own bound). In repetitive text a
   * chunk occurs many times: its first occurrence from the earliest start that bound allows is where the splitter
   * took it (elsewhere there is one occurrence and this finds it), and the last chunk ends where the text does.
   * The fallback keeps the slice invariant if a future splitter version normalised whitespace. A chunk that occurs
   * once after the previous chunk's start is there whatever that bound says, so the bound (which counts the previous
   * chunk's tokens again, most of the splitting's CPU) is only computed for repeats.
   */
  function locate(chunk: string, prev: Span | undefined, last: boolean): Span {
    if (last && text.slice(0, textEnd).endsWith(chunk) && textEnd - chunk.length > (prev?.start ?? -1))
      return { start: textEnd - chunk.length, end: textEnd };
    const once = prev ? text.indexOf(chunk, prev.start + 1) : -1;
    if (once >= 0 && text.indexOf(chunk, once + 1) < 0) return { start: once, end: once + chunk.length };
    let start = prev ? text.indexOf(chunk, earliestStartAfter(prev)) : text.indexOf(chunk);
    if (prev && start < 0) start = text.indexOf(chunk, prev.start + 1);
    if (start < 0) start = text.indexOf(chunk);
    const from = prev ? prev.start + 1 : 0;
    return start < 0
      ? { start: from, end: Math.min(text.length, from + chunk.length) }
      : { start, end: start + chunk.length };
  }

  /**
   * The first offset after `prev.start` from which the rest of `prev` fits the overlap (slack for trims). The rest's
   * count at an offset is the pre-tokens from there on (summed once, from the end) plus the part of the one it cuts.
   */
  function earliestStartAfter(prev: Span): number {
    const rest = piecesOf(text, prev.start + 1, prev.end);
    const countFrom = (at: number) => {
      let k = 0;
      for (let lo = 0, hi = rest.length - 1; lo <= hi;) {
        const mid = (lo + hi) >> 1;
        if (rest[mid]!.start <= at) ((k = mid), (lo = mid + 1));
        else hi = mid - 1;
      }
      const piece = rest[k];
      if (!piece) return 0;
      const cut = at === piece.start ? piece.tokens : at < piece.end ? countBounded(text.slice(at, piece.end)) : 0;
      return cut + piece.after;
    };
    let lo = prev.start + 1;
    let hi = Math.max(lo, prev.end);
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (countFrom(mid) <= overlapTokens + 8) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }
}

/** The pre-tokens of text[from, to): where each starts and ends, its count, and the count of those after it. */
function piecesOf(text: string, from: number, to: number) {
  const pieces: { start: number; end: number; tokens: number; after: number }[] = [];
  const slice = text.slice(from, to);
  for (const m of slice.matchAll(new RegExp(cl100k.pat_str, 'gu'))) {
    const start = from + m.index;
    // The regex covers every character; a gap is counted with the piece before it.
    if (pieces.length && pieces.at(-1)!.end < start)
      pieces.at(-1)!.tokens += countBounded(text.slice(pieces.at(-1)!.end, start));
    pieces.push({ start, end: start + m[0].length, tokens: countPiece(m[0]), after: 0 });
  }
  for (let i = pieces.length - 2; i >= 0; i--) pieces[i]!.after = pieces[i + 1]!.after + pieces[i + 1]!.tokens;
  return pieces;
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
  if (extracted.kind === 'units') {
    // Each passage stays inside its unit, so its anchor names one slide, sheet, chapter or section.
    const passages: Passage[] = [];
    for (const unit of extracted.units) {
      for (const s of await splitWithOffsets(unit.text)) {
        passages.push({
          ord: passages.length,
          text: unit.text.slice(s.start, s.end),
          modality: extracted.modality,
          charStart: s.start,
          charEnd: s.end,
          anchor: unit.anchor,
          embedding: null,
        });
      }
    }
    return passages;
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
