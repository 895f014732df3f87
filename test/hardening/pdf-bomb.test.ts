import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { extract } from '../../src/lib/extract.js';
import { extractPdfPagesBoxed } from '../../src/lib/pdf-box.js';

/** A one-page PDF whose content stream is 153 KB deflated and `mb` MB inflated. */
function pdfBomb(mb: number): Buffer {
  const z = deflateSync(Buffer.alloc(mb * 1024 * 1024, 0x20), { level: 9 });
  const head = [
    '%PDF-1.4\n',
    '1 0 obj <</Type/Catalog/Pages 2 0 R>> endobj\n',
    '2 0 obj <</Type/Pages/Kids[3 0 R]/Count 1>> endobj\n',
    '3 0 obj <</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]/Contents 4 0 R>> endobj\n',
    `4 0 obj <</Length ${z.length}/Filter/FlateDecode>> stream\n`,
  ].join('');
  return Buffer.concat([
    Buffer.from(head, 'latin1'),
    z,
    Buffer.from('\nendstream endobj\ntrailer <</Root 1 0 R>>\n%%EOF\n', 'latin1'),
  ]);
}

describe('PDF extraction in a box', () => {
  it('a decompression bomb (153 KB → 150 MB) never inflates inside the indexing process; past the memory limit it fails with the reason', async () => {
    const bomb = pdfBomb(150);
    expect(bomb.length).toBeLessThan(200_000);
    const rssBefore = process.memoryUsage().rss;
    const out = await extract('application/pdf', 'bomb.pdf', bomb);
    const growthMb = (process.memoryUsage().rss - rssBefore) / 1024 / 1024;
    console.log(`[pdf-bomb] RSS of the indexing process grew ${growthMb.toFixed(1)} MB while the bomb was extracted`);
    // The default 768 MB box is too small for it: this artifact indexes by path and metadata, with the reason.
    expect(out).toEqual({ kind: 'none', modality: 'pdf', reason: 'decoding it needs more than 768 MB' });
    expect(growthMb).toBeLessThan(50);
    // A roomier box lets it decode (to no text), still in the child; a short clock stops it instead.
    expect(await extractPdfPagesBoxed(bomb, { memoryMb: 1536, timeMs: 20_000, maxTextBytes: 1024 })).toEqual(['']);
    await expect(extractPdfPagesBoxed(bomb, { memoryMb: 1024, timeMs: 50, maxTextBytes: 1024 })).rejects.toThrow(
      /longer than 50 ms/,
    );
  });
});
