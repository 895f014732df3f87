import { fileURLToPath } from 'node:url';
import { BoxFailed, runBoxed, type BoxLimits } from './box.js';

/**
 * PDF text extraction in a box (src/lib/box.ts): pdf.js inflates streams as it reads them, so a 150 KB PDF can decode
 * to gigabytes.
 */
export type PdfBoxLimits = BoxLimits;

export const PDF_BOX_DEFAULTS: PdfBoxLimits = { memoryMb: 768, timeMs: 30_000, maxTextBytes: 32 * 1024 * 1024 };

const RUNNER = fileURLToPath(new URL('./pdf-runner.mjs', import.meta.url));

export class PdfExtractionFailed extends Error {}

export async function extractPdfPagesBoxed(bytes: Buffer, limits: PdfBoxLimits = PDF_BOX_DEFAULTS): Promise<string[]> {
  let out: string;
  try {
    out = await runBoxed([RUNNER], bytes, limits);
  } catch (err) {
    const message = (err as Error).message.replace('the file is unreadable', 'the PDF is unreadable');
    throw new PdfExtractionFailed(err instanceof BoxFailed ? message : String(err));
  }
  try {
    return JSON.parse(out) as string[];
  } catch {
    throw new PdfExtractionFailed('the extractor wrote no readable text');
  }
}
