import { extractPdfPagesBoxed } from './pdf-box.js';
import { BoxFailed } from './box.js';
import { extractDocumentBoxed, OCR_PAGE_CAP, type DocumentFormat } from './documents/box.js';
import type { Unit } from './documents/units.js';

/**
 * Text extraction per content kind. Text and code are decoded as UTF-8; PDFs give one text per
 * page (unpdf, a serverless build of pdf.js); WebVTT/SRT give timed cues. Everything else
 * (images, audio, video, archives, binaries) yields no text: only path and metadata are indexed.
 */

/** What kind of content a passage came from; search filters by it. */
export const MODALITIES = ['text', 'code', 'pdf', 'document', 'image', 'audio', 'video'] as const;
export type Modality = (typeof MODALITIES)[number];

export type Extracted =
  | { kind: 'text'; modality: 'text' | 'code'; text: string }
  | { kind: 'pdf'; pages: string[]; partial?: string }
  | { kind: 'timed'; cues: Cue[] }
  /** Office, OpenDocument, EPUB, HTML, RTF: one unit per slide/sheet/chapter/heading section, each with its anchor. */
  | { kind: 'units'; modality: 'document' | 'image'; units: Unit[]; partial?: string }
  | { kind: 'none'; modality: Modality | null; reason?: string };

export interface Cue {
  startMs: number;
  endMs: number;
  text: string;
}

const CODE_EXTENSIONS = new Set([
  'ts',
  'tsx',
  'js',
  'jsx',
  'mjs',
  'cjs',
  'py',
  'rb',
  'go',
  'rs',
  'java',
  'kt',
  'kts',
  'scala',
  'c',
  'h',
  'cc',
  'cpp',
  'hpp',
  'cs',
  'swift',
  'php',
  'pl',
  'lua',
  'r',
  'jl',
  'sh',
  'bash',
  'zsh',
  'ps1',
  'sql',
  'tex',
  'css',
  'scss',
  'vue',
  'svelte',
  'hs',
  'ml',
  'ex',
  'exs',
  'erl',
  'clj',
  'dart',
  'zig',
  'nim',
  'proto',
  'graphql',
  'tf',
  'dockerfile',
  'makefile',
]);
const TEXT_EXTENSIONS = new Set([
  'txt',
  'md',
  'markdown',
  'rst',
  'adoc',
  'org',
  'csv',
  'tsv',
  'json',
  'jsonl',
  'yaml',
  'yml',
  'toml',
  'ini',
  'xml',
  'log',
  'cfg',
  'conf',
  'env',
]);
const TIMED_EXTENSIONS = new Set(['vtt', 'srt']);
const CODE_MIME = /^(text\/x-|application\/(x-)?(javascript|typescript|sh|python|sql|httpd-php|ruby|perl))/;
const TEXT_MIME = /^(text\/|application\/(json|ld\+json|xml|x-yaml|yaml|toml|x-ndjson|csv|markdown|x-tex)\b)/;

function extensionOf(path: string): string {
  const name = path.slice(path.lastIndexOf('/') + 1).toLowerCase();
  if (name === 'dockerfile' || name === 'makefile') return name;
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(dot + 1) : '';
}

const baseType = (contentType: string) => contentType.split(';')[0]!.trim().toLowerCase();

/** Images OCR reads (English): the types tesseract.js's Leptonica decodes. */
const OCR_TYPES = new Set([
  'image/png',
  'image/jpeg',
  'image/tiff',
  'image/webp',
  'image/bmp',
  'image/x-portable-bitmap',
]);
/** Larger images are indexed by path and metadata only: OCR time grows with pixels. */
export const OCR_MAX_BYTES = 20 * 1024 * 1024;
export const ocrReads = (contentType: string) => OCR_TYPES.has(baseType(contentType));

const OOXML = 'application/vnd.openxmlformats-officedocument.';
const ODF = 'application/vnd.oasis.opendocument.';
const DOCUMENT_TYPES: Record<string, DocumentFormat> = {
  [`${OOXML}wordprocessingml.document`]: 'docx',
  [`${OOXML}presentationml.presentation`]: 'pptx',
  [`${OOXML}spreadsheetml.sheet`]: 'xlsx',
  [`${ODF}text`]: 'odt',
  [`${ODF}presentation`]: 'odp',
  [`${ODF}spreadsheet`]: 'ods',
  'application/epub+zip': 'epub',
  'text/html': 'html',
  'application/xhtml+xml': 'html',
  'application/rtf': 'rtf',
  'text/rtf': 'rtf',
};
const DOCUMENT_EXTENSIONS: Record<string, DocumentFormat> = {
  docx: 'docx',
  pptx: 'pptx',
  xlsx: 'xlsx',
  odt: 'odt',
  odp: 'odp',
  ods: 'ods',
  epub: 'epub',
  html: 'html',
  htm: 'html',
  xhtml: 'html',
  rtf: 'rtf',
};
/** Types a client sends when it does not know better: the extension decides. */
const GENERIC = new Set(['application/octet-stream', 'application/zip', 'application/x-zip-compressed', 'text/plain']);

type Kind = 'pdf' | 'timed' | 'code' | 'text' | Modality | 'binary' | { document: DocumentFormat };

/** How an artifact is read, from its content type and, for generic types, its file extension. */
export function classify(contentType: string, path: string): Kind {
  const type = baseType(contentType);
  const ext = extensionOf(path);
  if (type === 'application/pdf') return 'pdf';
  const format = DOCUMENT_TYPES[type] ?? (GENERIC.has(type) ? DOCUMENT_EXTENSIONS[ext] : undefined);
  if (format) return { document: format };
  if (type === 'text/vtt' || type === 'application/x-subrip' || type === 'text/srt' || TIMED_EXTENSIONS.has(ext)) {
    if (type.startsWith('text/') || type === 'application/x-subrip' || type === 'application/octet-stream')
      return 'timed';
  }
  if (type.startsWith('image/')) return 'image';
  if (type.startsWith('audio/')) return 'audio';
  if (type.startsWith('video/')) return 'video';
  if (
    CODE_MIME.test(type) ||
    (CODE_EXTENSIONS.has(ext) && (type.startsWith('text/') || type === 'application/octet-stream'))
  )
    return 'code';
  if (TEXT_MIME.test(type)) return 'text';
  if (type === 'application/octet-stream' && TEXT_EXTENSIONS.has(ext)) return 'text';
  return 'binary';
}

/** Whether extraction reads the bytes at all: images, audio, video and binaries index by path and metadata only. */
export function readsContent(contentType: string, path: string): boolean {
  const kind = classify(contentType, path);
  return typeof kind === 'object' || ['pdf', 'timed', 'code', 'text'].includes(kind) || ocrReads(contentType);
}

/** Strict UTF-8 decode; null for bytes that are not text (invalid UTF-8 or NUL bytes). */
export function decodeText(bytes: Buffer): string | null {
  if (bytes.includes(0)) return null;
  try {
    const text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  } catch {
    return null;
  }
}

export async function extract(contentType: string, path: string, bytes: Buffer): Promise<Extracted> {
  const kind = classify(contentType, path);
  if (typeof kind === 'object') {
    // Like a PDF: bytes that are no readable document, or that a budget refuses, index by path and metadata.
    try {
      return capUnits(await extractDocumentBoxed(kind.document, bytes));
    } catch (err) {
      if (!(err instanceof BoxFailed)) throw err;
      return { kind: 'none', modality: 'document', reason: err.message };
    }
  }
  switch (kind) {
    case 'pdf': {
      // Parsing is deterministic: bytes that are not a readable PDF (corrupt, encrypted) never
      // become one, so they index like other unreadable content (path and metadata) instead of
      // failing the pass on every retry.
      // A PDF the box gives up on (a decompression bomb) indexes the same way, with the reason.
      try {
        return await ocrScannedPages(bytes, await extractPdfPagesBoxed(bytes));
      } catch (err) {
        return { kind: 'none', modality: 'pdf', reason: (err as Error).message };
      }
    }
    case 'timed': {
      const text = decodeText(bytes);
      return text === null ? { kind: 'none', modality: null } : { kind: 'timed', cues: parseTimedText(text) };
    }
    case 'text':
    case 'code': {
      const text = decodeText(bytes);
      return text === null ? { kind: 'none', modality: null } : { kind: 'text', modality: kind, text };
    }
    case 'binary':
      return { kind: 'none', modality: null };
    case 'image':
      return ocrReads(contentType) ? ocr(bytes) : { kind: 'none', modality: 'image' };
    default:
      return { kind: 'none', modality: kind };
  }
}

/**
 * A PDF's pages with no text layer (a scan) are OCRed, up to OCR_PAGE_CAP of them; a scan of more pages is refused by
 * that budget: its text-layer pages are kept (`partial`), or, with none, it fails (path and metadata only).
 */
async function ocrScannedPages(bytes: Buffer, pages: string[]): Promise<Extracted> {
  const blank = pages.flatMap((text, i) => (text.trim() ? [] : [i + 1]));
  if (!blank.length) return { kind: 'pdf', pages };
  if (blank.length > OCR_PAGE_CAP) {
    const why = `${blank.length} pages have no text layer: over the OCR budget of ${OCR_PAGE_CAP} pages`;
    return blank.length === pages.length
      ? { kind: 'none', modality: 'pdf', reason: why }
      : { kind: 'pdf', pages, partial: why };
  }
  try {
    for (const unit of await extractDocumentBoxed('pdf-ocr', bytes, undefined, [blank.join(',')]))
      if ('page' in unit.anchor) pages[unit.anchor.page - 1] = unit.text;
    return { kind: 'pdf', pages };
  } catch (err) {
    if (!(err instanceof BoxFailed)) throw err;
    return { kind: 'pdf', pages, partial: `OCR of its scanned pages failed: ${err.message}` };
  }
}

async function ocr(bytes: Buffer): Promise<Extracted> {
  if (bytes.length > OCR_MAX_BYTES)
    return { kind: 'none', modality: 'image', reason: `the image is over ${OCR_MAX_BYTES} bytes (OCR budget)` };
  try {
    const units = await extractDocumentBoxed('ocr', bytes);
    return units.length ? { kind: 'units', modality: 'image', units } : { kind: 'none', modality: 'image' };
  } catch (err) {
    if (!(err instanceof BoxFailed)) throw err;
    return { kind: 'none', modality: 'image', reason: err.message };
  }
}

/** The most text one document keeps (characters); past it the rest is cut and its extraction is `partial`. */
export const DOCUMENT_TEXT_CAP = 8 * 1024 * 1024;

function capUnits(units: Unit[], cap = DOCUMENT_TEXT_CAP): Extracted {
  let left = cap;
  const kept: Unit[] = [];
  for (const unit of units) {
    if (left <= 0) break;
    kept.push(unit.text.length > left ? { ...unit, text: unit.text.slice(0, left) } : unit);
    left -= unit.text.length;
  }
  const partial = left < 0 ? `its text is over ${cap} characters: the rest was cut` : undefined;
  return { kind: 'units', modality: 'document', units: kept, ...(partial ? { partial } : {}) };
}

/** Largest document MCP `read` extracts on request (bigger ones are answered as binaries: a download URL). */
export const READ_DOCUMENT_MAX_BYTES = 64 * 1024 * 1024;

/** Whether `read` answers this artifact as document units (PDF pages, slides, sheets, chapters, sections). */
export function readsAsUnits(contentType: string, path: string): boolean {
  const kind = classify(contentType, path);
  return typeof kind === 'object' || kind === 'pdf';
}

/** The units `read` pages through: a PDF's pages or a document's units; empty when nothing readable came out. */
export async function documentUnits(contentType: string, path: string, bytes: Buffer): Promise<Unit[]> {
  const extracted = await extract(contentType, path, bytes);
  if (extracted.kind === 'pdf') return extracted.pages.map((text, i) => ({ anchor: { page: i + 1 }, text }));
  return extracted.kind === 'units' ? extracted.units : [];
}

const TIMESTAMP = /(?:(\d+):)?(\d{1,2}):(\d{2})[.,](\d{1,3})/;
const CUE_TIMING = new RegExp(`^\\s*${TIMESTAMP.source}\\s*-->\\s*${TIMESTAMP.source}`);

function toMs(h: string | undefined, m: string, s: string, frac: string): number {
  return ((Number(h ?? 0) * 60 + Number(m)) * 60 + Number(s)) * 1000 + Number(frac.padEnd(3, '0'));
}

/**
 * WebVTT and SRT cues. A cue is a timing line (`00:00:01.000 --> 00:00:04.000`, SRT uses a comma)
 * followed by text lines up to a blank line; cue identifiers, NOTE/STYLE/REGION blocks and the
 * WEBVTT header are skipped, and inline tags such as `<v Speaker>` are removed.
 */
export function parseTimedText(source: string): Cue[] {
  const cues: Cue[] = [];
  const blocks = source.replace(/\r\n?/g, '\n').split(/\n{2,}/);
  for (const block of blocks) {
    const lines = block.split('\n');
    const timingAt = lines.findIndex((l) => CUE_TIMING.test(l));
    if (timingAt < 0) continue;
    const m = CUE_TIMING.exec(lines[timingAt]!)!;
    const text = lines
      .slice(timingAt + 1)
      .map((l) => l.replace(/<[^>]*>/g, '').trim())
      .filter(Boolean)
      .join(' ');
    if (!text) continue;
    cues.push({ startMs: toMs(m[1], m[2]!, m[3]!, m[4]!), endMs: toMs(m[5], m[6]!, m[7]!, m[8]!), text });
  }
  return cues;
}

/** Bytes in the search preview (SPEC 8: "first ~16 KB of each artifact"). */
export const PREVIEW_BYTES = 16 * 1024;

/** The searchable preview: the first 16 KB of a text, code or document artifact (none for PDFs and media, SPEC 4.2). */
export function previewOf(extracted: Extracted): string {
  let text: string;
  if (extracted.kind === 'text') text = extracted.text;
  else if (extracted.kind === 'timed') text = extracted.cues.map((c) => c.text).join('\n');
  else if (extracted.kind === 'units') text = extracted.units.map((u) => u.text).join('\n\n');
  else return '';
  const bytes = Buffer.from(text.slice(0, PREVIEW_BYTES), 'utf8');
  if (bytes.length <= PREVIEW_BYTES) return text.slice(0, PREVIEW_BYTES);
  return bytes
    .subarray(0, PREVIEW_BYTES)
    .toString('utf8')
    .replace(/\uFFFD$/, '');
}
