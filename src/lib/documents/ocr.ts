import { createRequire } from 'node:module';
import path from 'node:path';
import { createWorker } from 'tesseract.js';
import type { Unit } from './units.js';
import { OCR_PAGE_CAP } from './box.js';

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

interface PdfImage {
  width: number;
  height: number;
  kind: number;
  data?: Uint8Array | Uint8ClampedArray;
}

/** A pdf.js image as a binary PGM (grey), which Leptonica decodes: 1 bit, RGB and RGBA pixels averaged to grey. */
function pgmOf(img: PdfImage): Buffer | null {
  const { width, height, kind, data } = img;
  if (!data || !width || !height) return null;
  const grey = Buffer.alloc(width * height);
  if (kind === 1) {
    const rowBytes = (width + 7) >> 3;
    for (let y = 0; y < height; y++)
      for (let x = 0; x < width; x++) grey[y * width + x] = data[y * rowBytes + (x >> 3)]! & (128 >> (x & 7)) ? 255 : 0;
  } else {
    const step = kind === 3 ? 4 : 3;
    for (let i = 0; i < width * height; i++)
      grey[i] = (data[i * step]! + data[i * step + 1]! + data[i * step + 2]!) / 3;
  }
  return Buffer.concat([Buffer.from(`P5\n${width} ${height}\n255\n`), grey]);
}

/**
 * OCR of a PDF's pages that have no text layer (a scan): each such page's images are read from the PDF as pdf.js
 * decodes them (no rendering library needed) and recognised; `pages` are 1-based numbers, at most OCR_PAGE_CAP.
 */
export async function ocrPdfPages(bytes: Uint8Array, pages: number[]): Promise<Unit[]> {
  const { getDocumentProxy } = await import('unpdf');
  const { OPS } = (await import('unpdf/pdfjs')) as unknown as { OPS: Record<string, number> };
  const pdf = await getDocumentProxy(bytes);
  const worker = await createWorker('eng', 1, { langPath: ENG_DIR, gzip: true, cacheMethod: 'none' });
  const units: Unit[] = [];
  try {
    for (const number of pages.slice(0, OCR_PAGE_CAP)) {
      const page = await pdf.getPage(number);
      const ops = await page.getOperatorList();
      const texts: string[] = [];
      for (let i = 0; i < ops.fnArray.length; i++) {
        if (ops.fnArray[i] !== OPS.paintImageXObject) continue;
        const name = (ops.argsArray[i] as string[])[0]!;
        const img = await new Promise<PdfImage>((resolve) => page.objs.get(name, resolve as (v: unknown) => void));
        const pgm = pgmOf(img);
        if (pgm) texts.push((await worker.recognize(pgm)).data.text.trim());
      }
      const text = texts.filter(Boolean).join('\n\n');
      if (text) units.push({ anchor: { page: number }, text });
    }
  } finally {
    await worker.terminate();
  }
  return units;
}
