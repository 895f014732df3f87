import { AppError } from '../lib/errors.js';
import { READ_DOCUMENT_MAX_BYTES, readsAsUnits } from '../lib/extract.js';
import { cachedDocumentUnits } from '../lib/documents/unit-cache.js';
import type { Unit } from '../lib/documents/units.js';
import type { RequestContext } from '../platform/request-context.js';
import { artifactContent, type BlobRef } from './content.js';
import { blobBytes, isTextual } from './text.js';
import { fileTypeOf } from './artifact-rules.js';
import { numberLines } from './memory/memory-tree.js';
import { lineSpan, lineStarts } from '../lib/line-starts.js';

/**
 * GET /v0/artifacts/{art_id}/text: a document's extracted text (Markdown), one unit at a time, chosen by `page`,
 * `slide`, `sheet` (its name) or `unit` (1-based, any kind); the first unit when none is named. The bytes stay on
 * …/download. A unit is what a find hit's anchor names. Within the unit, lines `lineStart` on (`lineCount` of them),
 * numbered the memory tool's way when asked (issue 57); a line past the end is an empty text, `lastLine` null.
 */
export interface UnitSelector {
  unit?: number;
  page?: number;
  slide?: number;
  sheet?: string;
  lineStart?: number;
  lineCount?: number;
  numbered?: boolean;
}

export interface DocumentUnitRead {
  blob: BlobRef;
  index: number;
  count: number;
  unit: Unit;
  /** The unit's lines asked for, numbered if asked. */
  text: string;
  lineStart: number;
  lastLine: number | null;
  totalLines: number;
}

/** Lines `lineStart` on of a unit's text (all by default), numbered if asked. */
function linesOf(text: string, s: UnitSelector) {
  const starts = lineStarts(text);
  const lineStart = s.lineStart ?? 1;
  const { start, end, lastLine } = lineSpan(starts, text.length, lineStart, s.lineCount);
  const lines = text.slice(start, end);
  return { text: s.numbered ? numberLines(lines, lineStart) : lines, lineStart, lastLine, totalLines: starts.length };
}

function pick(units: Unit[], s: UnitSelector): number {
  const at = (test: (u: Unit) => boolean) => units.findIndex(test);
  if (s.page !== undefined) return at((u) => 'page' in u.anchor && u.anchor.page === s.page);
  if (s.slide !== undefined) return at((u) => 'slide' in u.anchor && u.anchor.slide === s.slide);
  if (s.sheet !== undefined) return at((u) => 'sheet' in u.anchor && u.anchor.sheet === s.sheet);
  return (s.unit ?? 1) - 1;
}

export async function readDocumentUnit(
  rc: RequestContext,
  artId: string,
  selector: UnitSelector,
): Promise<DocumentUnitRead> {
  const blob = await artifactContent(rc, { artId });
  const document = readsAsUnits(blob.contentType, blob.path);
  // A text file is one unit, anchored at its top: every readable artifact answers here.
  const text = !document && isTextual(fileTypeOf(blob.path, blob.contentType), blob.contentType);
  if ((!document && !text) || blob.size > READ_DOCUMENT_MAX_BYTES)
    throw new AppError('NOT_A_DOCUMENT', `${blob.path} is not a document or text file whose text can be read by unit`);
  const units = text
    ? [{ anchor: { heading: '' }, text: (await blobBytes(rc, blob)).toString('utf8') }]
    : await cachedDocumentUnits(blob, () => blobBytes(rc, blob));
  if (!units.length) throw new AppError('NOT_A_DOCUMENT', `no text could be extracted from ${blob.path}`);
  const index = pick(units, selector);
  const unit = units[index];
  if (index < 0 || !unit)
    throw new AppError('UNIT_NOT_FOUND', `${blob.path} has no such unit`, { units: units.length });
  return { blob, index: index + 1, count: units.length, unit, ...linesOf(unit.text, selector) };
}
