import { createRequire } from 'node:module';
import path from 'node:path';
import { createWorker } from 'tesseract.js';
import type { Unit } from './units.js';

/**
 * OCR of an image (English), inside the extraction box: tesseract.js runs its WebAssembly core from node_modules and
 * reads the English model from the @tesseract.js-data/eng package, so nothing is fetched at run time. Each page of a
 * multi-page image is one unit anchored by `{page}`; tesseract.js reads one page per call (a TIFF's first).
 */
const require = createRequire(import.meta.url);
const ENG_DIR = path.join(path.dirname(require.resolve('@tesseract.js-data/eng/package.json')), '4.0.0_best_int');

export async function ocrUnits(bytes: Uint8Array): Promise<Unit[]> {
  const worker = await createWorker('eng', 1, { langPath: ENG_DIR, gzip: true, cacheMethod: 'none' });
  try {
    const { data } = await worker.recognize(Buffer.from(bytes));
    const text = data.text.trim();
    return text ? [{ anchor: { page: 1 }, text }] : [];
  } finally {
    await worker.terminate();
  }
}
