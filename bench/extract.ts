import { readFileSync } from 'node:fs';
import { extract } from '../src/lib/extract.js';
import { HTML_PAGE, makeDocuments, RTF_DOC, type MadeDocument } from '../test/search/documents-helpers.js';

/**
 * bench:extract: what extracting documents costs, per kind, on the documents test/search/documents.test.ts makes
 * (python-docx, python-pptx, openpyxl, odfpy, ebooklib; HTML and RTF by hand), plus ~1 MB HTML and RTF to show the
 * per-byte rate apart from the box's start. Each file runs ROUNDS times through `extract` (the boxed child the indexer
 * uses): wall ms per file, MB/s, and CPU ms per MB of this process and its children (the boxes), from /proc.
 */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

/** CPU ms of this process plus its exited, waited-for children (utime, stime, cutime, cstime). */
function cpuMs(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) * 10;
}

function large(doc: MadeDocument, body: string, times: number, wrap: (s: string) => string): MadeDocument {
  return { ...doc, path: doc.path.replace('.', '-1mb.'), bytes: Buffer.from(wrap(body.repeat(times))) };
}

const made = makeDocuments();
if ('unavailable' in made) {
  console.log(`bench:extract skipped: ${made.unavailable}`);
  process.exit(0);
}
const docs = made.documents;
const html = docs.find((d) => d.path.endsWith('.html'))!;
const rtf = docs.find((d) => d.path.endsWith('.rtf'))!;
docs.push(
  large(
    html,
    '<h2>Part</h2><p>Some paragraph text of a long exported page, with a <a href="#">link</a>.</p>',
    12_000,
    (s) => HTML_PAGE.replace('</body>', `${s}</body>`),
  ),
  large(rtf, String.raw`Another paragraph of a long memo with caf\'e9 text.\par `, 20_000, (s) =>
    RTF_DOC.replace(/\}$/, `${s}}`),
  ),
);

console.log(`bench:extract — ${ROUNDS} rounds per file, through the boxed extractor`);
console.log('file                      bytes    units  ms/file   MB/s   CPU ms/MB');
for (const doc of docs) {
  const cpu0 = cpuMs();
  const t0 = performance.now();
  let units = 0;
  for (let i = 0; i < ROUNDS; i++) {
    const r = await extract(doc.contentType, doc.path, doc.bytes);
    units = r.kind === 'units' ? r.units.length : -1;
  }
  const ms = (performance.now() - t0) / ROUNDS;
  const cpu = (cpuMs() - cpu0) / ROUNDS;
  const mb = doc.bytes.length / 1024 / 1024;
  console.log(
    `${doc.path.padEnd(24)} ${String(doc.bytes.length).padStart(8)} ${String(units).padStart(6)} ${ms.toFixed(0).padStart(8)}` +
      ` ${(mb / (ms / 1000)).toFixed(2).padStart(7)} ${(cpu / mb).toFixed(0).padStart(10)}`,
  );
}
