import { classify, ocrReads, type Extracted } from '../extract.js';

/**
 * What a file's extraction came to, kept on its search document and shown by MCP `lookup`: `done`, `partial: <why>`
 * (a budget cut it short: its first part is indexed), `failed: <why>` (unreadable, or refused by a budget: only its
 * path and metadata are indexed); null when its content is not read at all (media, binaries).
 */
export function extractionState(extracted: Extracted): string | null {
  if (extracted.kind === 'none') return extracted.reason ? `failed: ${extracted.reason}` : null;
  if ((extracted.kind === 'units' || extracted.kind === 'pdf') && extracted.partial)
    return `partial: ${extracted.partial}`;
  return 'done';
}

/**
 * Extractor versions by format: raise one when its extractor improves, and the sweep re-queues every file whose
 * passages an older version made (search_documents.extractor, `docx@1`).
 */
export const EXTRACTOR_VERSIONS = {
  pdf: 1,
  docx: 1,
  pptx: 1,
  xlsx: 1,
  odt: 1,
  odp: 1,
  ods: 1,
  epub: 1,
  html: 1,
  rtf: 1,
  ocr: 1,
} as const;

/** The extractor (`format@version`) that reads this file (`ocr` for images); null for text, code, subtitles, media. */
export function extractorOf(contentType: string, path: string): string | null {
  const kind = classify(contentType, path);
  const format =
    typeof kind === 'object'
      ? kind.document
      : kind === 'pdf'
        ? 'pdf'
        : kind === 'image' && ocrReads(contentType)
          ? 'ocr'
          : null;
  return format ? `${format}@${EXTRACTOR_VERSIONS[format]}` : null;
}

/** Every current extractor: a document whose extractor is not among them was made by an older one. */
export const CURRENT_EXTRACTORS = Object.entries(EXTRACTOR_VERSIONS).map(([f, v]) => `${f}@${v}`);
