import { fileURLToPath } from 'node:url';
import { runBoxed, type BoxLimits } from '../box.js';
import type { Unit } from './units.js';

/** Document formats read in the box, by what `classify` calls them. */
export const DOCUMENT_FORMATS = ['docx', 'pptx', 'xlsx', 'odt', 'odp', 'ods', 'epub', 'html', 'rtf'] as const;
/** What the box reads: a document format, or `ocr` for an image (src/lib/documents/ocr.ts). */
export type DocumentFormat = (typeof DOCUMENT_FORMATS)[number];
export type BoxedFormat = DocumentFormat | 'ocr' | 'pdf-ocr';

/**
 * The tsx loader runs its hooks in a worker thread, whose code-range reservation needs a data segment of ~1.5 GB
 * (1 GB fails at start): the segment bounds what is mapped, --max-old-space-size the JS heap inside it.
 */
export const DOCUMENT_BOX_LIMITS: BoxLimits = { memoryMb: 1600, timeMs: 60_000, maxTextBytes: 32 * 1024 * 1024 };
const HEAP_MB = 512;
/** OCR runs its WebAssembly core in a worker thread: a third isolate's reservations (3 GB starts, measured). */
export const OCR_BOX_LIMITS: BoxLimits = { memoryMb: 3072, timeMs: 60_000, maxTextBytes: 1024 * 1024 };

/** Pages of a PDF OCR reads at most: a scan of more pages is refused by budget (its text-layer pages still count). */
export const OCR_PAGE_CAP = 50;

const RUNNER = fileURLToPath(new URL('./runner.ts', import.meta.url));
// The runner is TypeScript like the service: its child loads the same tsx loader, wherever the worker's cwd is.
const TSX = import.meta.resolve('tsx');

export async function extractDocumentBoxed(
  format: BoxedFormat,
  bytes: Buffer,
  limits: BoxLimits = format.endsWith('ocr') ? OCR_BOX_LIMITS : DOCUMENT_BOX_LIMITS,
  args: string[] = [],
): Promise<Unit[]> {
  return JSON.parse(
    await runBoxed([`--max-old-space-size=${HEAP_MB}`, '--import', TSX, RUNNER, format, ...args], bytes, limits),
  ) as Unit[];
}
