import { AppError } from '../lib/errors.js';
import { READ_DOCUMENT_MAX_BYTES, readsAsUnits } from '../lib/extract.js';
import { cachedDocumentUnits } from '../lib/documents/unit-cache.js';
import type { Anchor } from '../lib/documents/units.js';
import { lineSpan, lineStarts, pieceAt } from '../lib/line-starts.js';
import type { RequestContext } from '../platform/request-context.js';
import { fileTypeOf } from './artifact-rules.js';
import { artifactContent, downloadUrl, type BlobRef, type ContentTarget, type DownloadUrl } from './content.js';
import { artifactByRef } from './refs.js';
import { blobBytes, isTextual } from './text.js';

/**
 * Reading an artifact for a context window (MCP read, read_version): text by character or line range with the totals
 * (a 5 MB log is read page by page), small images inline, other small binaries as bytes, anything else as a signed
 * download URL that needs no credential.
 */

/** Characters from `offset` (`length` of them), or lines from `lineStart` (1-based, `lineCount` of them). */
export interface RangeAsked {
  /** For a document (PDF, Office, OpenDocument, EPUB, HTML, RTF): the unit (page, slide, sheet…) to read, 1-based. */
  unit?: number;
  offset?: number;
  length?: number;
  lineStart?: number;
  lineCount?: number;
}

/** A text range: characters [start, stop) of a text of `totalChars` characters and `totalLines` lines. */
export interface TextRange {
  content: string;
  totalChars: number;
  totalLines: number;
  start: number;
  stop: number;
  /** Last line included (1-based), null for an empty range. */
  lastLine: number | null;
  /** For a document: which unit the text is (1-based), of how many, and its anchor. */
  unit?: { index: number; count: number; anchor: Anchor };
}

export type RangeRead =
  | { kind: 'text'; blob: BlobRef; range: TextRange }
  | { kind: 'image'; blob: BlobRef; bytes: Buffer }
  | { kind: 'embedded'; blob: BlobRef; bytes: Buffer }
  | { kind: 'download'; blob: BlobRef; image: boolean; download: DownloadUrl };

const INLINE_IMAGE = /^image\/(png|jpeg|gif|webp)$/i;

/**
 * Reads the artifact `ref` names (its current version, or `version`). A text range shrinks until the caller's answer
 * for it fits the caller's size cap, cut at a line end when one is near.
 */
export async function readArtifactRange(
  rc: RequestContext,
  input: {
    ref: string;
    version?: number;
    range: RangeAsked;
    imageMaxBytes: number;
    /** Other binaries up to this size come back as bytes; larger ones as a signed URL that needs no credential. */
    embedMaxBytes: number;
    /** The caller's answer size cap, and the size of its answer for a range. */
    capChars: number;
    sizeOf: (read: { blob: BlobRef; range: TextRange }) => number;
    /** The bytes already chosen (a version as of a seq, whose artifact may be in the trash now). */
    blob?: BlobRef;
  },
): Promise<RangeRead> {
  const target: ContentTarget = input.blob
    ? { artId: input.blob.artId, versionNumber: input.blob.versionNumber }
    : { artId: (await artifactByRef(rc, input.ref)).id, versionNumber: input.version };
  const blob = input.blob ?? (await artifactContent(rc, target));
  const fileType = fileTypeOf(blob.path, blob.contentType);
  // Documents answer their extracted text (Markdown), one unit at a time; the original stays downloadable. One that
  // yields nothing (unreadable, over a budget) is answered as its bytes. A text document (HTML, RTF) answers its
  // source, which `edit` works on, unless a unit is asked for.
  const textual = isTextual(fileType, blob.contentType);
  const asUnits =
    readsAsUnits(blob.contentType, blob.path) &&
    blob.size <= READ_DOCUMENT_MAX_BYTES &&
    (!textual || input.range.unit !== undefined);
  const units = asUnits ? await cachedDocumentUnits(blob, () => blobBytes(rc, blob)) : [];
  if (!units.length && !textual) {
    if (fileType === 'image' && blob.size <= input.imageMaxBytes && INLINE_IMAGE.test(blob.contentType))
      return { kind: 'image', blob, bytes: await blobBytes(rc, blob) };
    if (blob.size <= input.embedMaxBytes) return { kind: 'embedded', blob, bytes: await blobBytes(rc, blob) };
    const download = await downloadUrl(rc, target, { signed: true });
    return { kind: 'download', blob, image: fileType === 'image', download };
  }
  const args = input.range;
  if (args.lineStart !== undefined && (args.offset !== undefined || args.length !== undefined)) {
    throw new AppError('INVALID_ARGUMENT', 'give either offset/length or line_start/line_count, not both');
  }
  let text: string;
  let unit: TextRange['unit'];
  if (units.length) {
    const index = args.unit ?? 1;
    if (index > units.length)
      throw new AppError('INVALID_ARGUMENT', `unit ${index} is past the last (${units.length})`);
    text = units[index - 1]!.text;
    unit = { index, count: units.length, anchor: units[index - 1]!.anchor };
  } else text = (await blobBytes(rc, blob)).toString('utf8');
  const starts = lineStarts(text);
  const total = text.length;
  let start: number;
  let end: number;
  if (args.lineStart !== undefined) {
    if (args.lineStart > starts.length && total > 0)
      throw new AppError('INVALID_ARGUMENT', `line_start ${args.lineStart} is past the last line (${starts.length})`);
    ({ start, end } = lineSpan(starts, total, args.lineStart, args.lineCount));
  } else {
    start = Math.min(args.offset ?? 0, total);
    end = Math.min(total, start + (args.length ?? total));
  }
  const rangeTo = (stop: number): TextRange => ({
    content: text.slice(start, stop),
    totalChars: total,
    totalLines: starts.length,
    start,
    stop,
    lastLine: stop > start ? pieceAt(starts, stop - 1) + 1 : null,
    ...(unit ? { unit } : {}),
  });
  // Shrink until the answer fits (JSON escaping can make it larger than the characters themselves).
  let stop = end;
  for (;;) {
    const range = rangeTo(stop);
    const size = input.sizeOf({ blob, range });
    if (size <= input.capChars || stop <= start) return { kind: 'text', blob, range };
    let next = start + Math.floor((stop - start) * (input.capChars / size) * 0.95);
    const nl = text.lastIndexOf('\n', next - 1);
    if (nl >= start && next - nl < 2000) next = nl + 1;
    stop = Math.max(start, Math.min(next, stop - 1));
  }
}
