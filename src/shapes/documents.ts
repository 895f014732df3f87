import { z } from 'zod';
import type { DocumentUnitRead } from '../files/document-text.js';
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
    text: r.unit.text,
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
  text: z.string().describe('the unit’s extracted text, Markdown where structure helps'),
});

export const documentTextQuery = z.object({
  unit: z.coerce.number().int().min(1).max(1_000_000).optional(),
  page: z.coerce.number().int().min(1).max(1_000_000).optional(),
  slide: z.coerce.number().int().min(1).max(1_000_000).optional(),
  sheet: z.string().min(1).max(256).optional(),
});
