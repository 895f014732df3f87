// Extracts one document's units in its own process (spawned by src/lib/documents/box.ts under a data-segment limit):
// the format as argv[2], the bytes on stdin, the units as JSON on stdout; a budget refusal exits 3 with the reason.
import { docxUnits, pptxUnits, xlsxUnits } from './ooxml.js';
import { odpUnits, odsUnits, odtUnits } from './odf.js';
import { epubUnits } from './epub.js';
import { htmlUnits } from './html.js';
import { rtfUnits } from './rtf.js';
import { ocrPdfPages, ocrUnits } from './ocr.js';
import { BudgetExceeded } from './zip.js';
import type { Unit } from './units.js';

const READERS: Record<string, (bytes: Uint8Array) => Unit[] | Promise<Unit[]>> = {
  docx: docxUnits,
  pptx: pptxUnits,
  xlsx: xlsxUnits,
  odt: odtUnits,
  odp: odpUnits,
  ods: odsUnits,
  epub: epubUnits,
  html: htmlUnits,
  rtf: rtfUnits,
  ocr: ocrUnits,
  // argv[3]: the 1-based pages with no text layer, comma-separated.
  'pdf-ocr': (bytes) => ocrPdfPages(bytes, (process.argv[3] ?? '').split(',').map(Number).filter(Boolean)),
};

const chunks: Buffer[] = [];
for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
try {
  const units = await READERS[process.argv[2] ?? '']!(new Uint8Array(Buffer.concat(chunks)));
  process.stdout.write(JSON.stringify(units));
} catch (err) {
  process.stderr.write(`${err instanceof BudgetExceeded ? 'BUDGET' : 'UNREADABLE'}: ${(err as Error).message}\n`);
  process.exitCode = 3;
}
