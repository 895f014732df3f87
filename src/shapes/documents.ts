import { z } from 'zod';
import type { DocumentUnitRead } from '../files/document-text.js';
import { queryFlag } from './artifact-schemas.js';
import { anchorSchema } from './search.js';

/** GET /v0/artifacts/{art_id}/text: one unit of a document's extracted text. */
export function documentTextOut(r: DocumentUnitRead) {
  return {
    art_id: r.blob.artId,
    path: r.blob.path,
    version_number: r.blob.versionNumber,
    content_type: r.blob.contentType,
    unit: r.index,
    units: r.count,
    anchor: r.unit.anchor,
    text: r.text,
    line_start: r.lineStart,
    last_line: r.lastLine,
    total_lines: r.totalLines,
  };
}

export const documentTextSchema = z.object({
  art_id: z.string(),
  path: z.string(),
  version_number: z.number().int(),
  content_type: z.string(),
  unit: z.number().int().describe('1-based index of this unit'),
  units: z.number().int().describe('how many units the document has'),
  anchor: anchorSchema,
  text: z
    .string()
    .describe(
      'the unit’s extracted text, Markdown where structure helps: lines line_start to last_line, numbered when asked',
    ),
  line_start: z.number().int().describe('first line of text (1-based; 1 unless line_start was asked)'),
  last_line: z
    .number()
    .int()
    .nullable()
    .describe('last line of text; null when it is empty (line_start past the last line, or an empty unit)'),
  total_lines: z.number().int().describe('lines in the unit (a final newline opens no line); page on with last_line+1'),
});

export const documentTextQuery = z.object({
  unit: z.coerce.number().int().min(1).max(1_000_000).optional(),
  page: z.coerce.number().int().min(1).max(1_000_000).optional(),
  slide: z.coerce.number().int().min(1).max(1_000_000).optional(),
  sheet: z.string().min(1).max(256).optional(),
  line_start: z.coerce
    .number()
    .int()
    .min(1)
    .max(100_000_000)
    .optional()
    .describe('first line of the unit to answer (1-based); past the last line: an empty text'),
  line_count: z.coerce.number().int().min(1).max(100_000).optional().describe('lines from line_start (default: all)'),
  numbered: queryFlag(
    'true: each line as the memory tool views it (number right-aligned 6 wide, a tab, the line), from line_start',
  ),
});
