import { zipSync } from 'fflate';
import { beforeAll, describe, expect, it } from 'vitest';
import { extract } from '../../src/lib/extract.js';
import type { TestApi } from '../helpers/api.js';
import { driveClient, sqlOn, useTestApi, type DriveClient } from '../artifacts/client.js';
import { sweepSearchIndex } from '../../src/search/sweep.js';
import { hitLocation } from '../../src/web/search-page.js';
import { mcpClient } from '../mcp/helpers.js';
import { makeDocuments, type MadeDocument } from './documents-helpers.js';

/**
 * Documents beyond PDF through the real API and worker (issue 58): each kind made by its real tool is found by `find`
 * and `/v0/search` by a word only inside it, and the find hit names the unit (slide, sheet and range, chapter, heading
 * path); a zip bomb is refused before inflating and the worker indexes the next file.
 */
let api: TestApi;
let d: DriveClient;
useTestApi({}, (a, c) => ((api = a), (d = c)));

let documents: MadeDocument[] = [];
let scans: Record<string, Buffer> = {};
let unavailable: string | undefined;
beforeAll(() => {
  const made = makeDocuments();
  if ('unavailable' in made) {
    unavailable = made.unavailable;
    console.log(`[documents] skipped: ${unavailable}`);
  } else ({ documents, scans } = made);
}, 300_000);

const BOUND_MS = 60_000;
async function until<T>(what: string, ask: () => Promise<T>, ok: (v: T) => boolean): Promise<T> {
  const end = Date.now() + BOUND_MS;
  let last = await ask();
  while (!ok(last)) {
    if (Date.now() > end) throw new Error(`${what}: not reached in ${BOUND_MS} ms; last ${JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, 200));
    last = await ask();
  }
  return last;
}
const find = async (q: string) => (await d.get(`/v0/find?mode=lexical&q=${encodeURIComponent(q)}`)).json.items as any[];
const search = async (q: string) => (await d.get(`/v0/search?q=${encodeURIComponent(q)}`)).json.items as any[];

/** The 1-based unit whose anchor is the document's: read units until one matches (few units per test document). */
async function unitOf(s: Awaited<ReturnType<typeof mcpClient>>, doc: MadeDocument): Promise<number> {
  for (let unit = 1; unit <= 10; unit++) {
    const r = await s.ok<any>('read', { ref: doc.path, unit });
    if (JSON.stringify(r.anchor) === JSON.stringify(doc.anchor)) return unit;
  }
  throw new Error(`no unit of ${doc.path} has anchor ${JSON.stringify(doc.anchor)}`);
}

describe('documents', () => {
  it('every kind: find and search reach a word inside it, the hit names its unit', async (ctx) => {
    if (unavailable) return ctx.skip();
    const ids = new Map<string, string>();
    for (const doc of documents) {
      const put = await d.put(doc.path, doc.bytes, { 'content-type': doc.contentType });
      expect(put.status, doc.path).toBe(200);
      ids.set(doc.path, put.json.art_id);
    }
    for (const doc of documents) {
      const hits = await until(
        `find ${doc.marker}`,
        () => find(doc.marker),
        (h) => h.length > 0,
      );
      expect(
        hits.map((h) => h.path),
        doc.marker,
      ).toEqual([doc.path]);
      const modality = doc.contentType.startsWith('image/') ? 'image' : doc.path.endsWith('.pdf') ? 'pdf' : 'document';
      expect(hits[0]).toMatchObject({ modality, anchor: doc.anchor });
      // The passage stays inside its unit: its text is the unit's, and its char span is an offset in it.
      expect(hits[0].text).toContain(doc.marker);
      if (modality !== 'pdf') expect(hits[0].char_end - hits[0].char_start).toBe(hits[0].text.length);
      else expect(hits[0]).toMatchObject({ page_start: 2, page_end: 2 });
      // PDFs have no search preview (SPEC 4.2): find reaches their pages, OCRed ones too.
      if (modality === 'pdf') continue;
      const found = await search(doc.marker);
      expect(
        found.map((h) => h.path),
        doc.marker,
      ).toEqual([doc.path]);
    }
    // MCP find names the unit, and MCP read answers that unit's Markdown, with how many units there are.
    const s = await mcpClient(api, d.apiKey);
    try {
      for (const doc of documents) {
        const found = await s.ok<{ items: any[] }>('find', { q: doc.marker, mode: 'lexical' });
        expect(found.items[0]).toMatchObject({ path: doc.path, anchor: doc.anchor });
        const line = found._text.split('\n').find((l) => l.startsWith(`${doc.path}#`))!;
        expect(JSON.parse(/ (\{.*?\})  /.exec(line)![1]!)).toEqual(doc.anchor);
        // An image is still read as an image; its OCR text is for find and search.
        if (doc.contentType.startsWith('image/')) {
          expect((await s.raw('read', { ref: doc.path })).content.map((c) => c.type)).toContain('image');
          continue;
        }
        const unitIndex = await unitOf(s, doc);
        const read = await s.ok<any>('read', { ref: doc.path, unit: unitIndex });
        expect(read).toMatchObject({ kind: 'text', unit: unitIndex, anchor: doc.anchor });
        expect(read.units).toBeGreaterThanOrEqual(unitIndex);
        expect(read.content).toContain(doc.marker);
        expect(read._text).toContain(`unit ${unitIndex} of ${read.units}`);
      }
      // A text document answers its source (what edit works on) unless a unit is asked for.
      const source = await s.ok<any>('read', { ref: 'docs/page.html' });
      expect(source.content).toContain('<script>const htmlscriptword');
      expect(source.unit).toBeUndefined();
      const deck = await s.ok<any>('read', { ref: 'docs/deck.pptx', unit: 2 });
      expect(deck.content).toContain('pptxmarkerword');
      expect(deck.content).toContain('Notes:');
      const sheet = await s.ok<any>('read', { ref: 'docs/book.xlsx', unit: 2 });
      expect(sheet.content).toContain('| xlsxmarkerword | 1200 |');
      expect((await s.fail('read', { ref: 'docs/deck.pptx', unit: 9 })).code).toBe('INVALID_ARGUMENT');
    } finally {
      await s.close();
    }
    // REST reads one unit by page/slide/sheet/unit; another drive's caller gets 404.
    const text = (q: string) => d.get(`/v0/artifacts/${ids.get(q.split('?')[0]!)}/text?${q.split('?')[1] ?? ''}`);
    expect((await text('docs/deck.pptx?slide=2')).json).toMatchObject({
      unit: 2,
      units: 3,
      anchor: { slide: 2 },
      text: expect.stringContaining('pptxmarkerword'),
    });
    expect((await text('docs/book.xlsx?sheet=Budget')).json).toMatchObject({
      anchor: { sheet: 'Budget', range: 'A1:B3' },
      text: expect.stringContaining('| xlsxmarkerword | 1200 |'),
    });
    expect((await text('docs/story.epub?unit=2')).json.text).toContain('epubmarkerword');
    expect((await text('docs/deck.pptx?slide=7')).json.detail.error).toMatchObject({
      code: 'UNIT_NOT_FOUND',
      units: 3,
    });
    const other = await driveClient(api);
    expect((await other.get(`/v0/artifacts/${ids.get('docs/deck.pptx')}/text`)).status).toBe(404);
    // The viewer shows a document's units, each at the id a find hit links to; the search page links there.
    const view = async (path: string) =>
      (await fetch(`${api.url}${path}`, { headers: d.auth, redirect: 'manual' }).then((r) => r.text())) as string;
    const deckPage = await view(`/${d.driveId}/docs/deck.pptx`);
    expect(deckPage).toContain('id="slide-2"');
    expect(deckPage).toContain('pptxmarkerword');
    expect(await view(`/${d.driveId}/docs/book.xlsx`)).toContain('id="sheet-Budget"');
    // The search page (a signed-in person's) links a passage there: a PDF at its page, a document at its unit.
    const hit = (await find('pptxnotesword'))[0];
    expect(hitLocation({ anchor: hit.anchor, snippet: '', text: hit.text })).toBe('#slide-2');
    expect(hitLocation({ anchor: { sheet: 'Budget', range: 'A1:B3' }, snippet: '', text: '' })).toBe('#sheet-Budget');
    expect(hitLocation({ pageStart: 2, anchor: { page: 2 }, snippet: '', text: '' })).toBe('?page=2');
    // The original stays downloadable byte for byte.
    const original = await d.get(`/v0/artifacts/${ids.get('docs/deck.pptx')}/download`);
    expect(original.bytes.equals(documents.find((x) => x.path === 'docs/deck.pptx')!.bytes)).toBe(true);
    // Visible text only: a page's scripts and styles are not text.
    expect(await find('htmlscriptword')).toEqual([]);
    expect(await find('htmlstyleword')).toEqual([]);
  }, 240_000);

  it('a zip bomb is refused before inflating; the worker indexes the next file', async () => {
    // 200 MB of zeros deflate to ~200 KB: over the per-entry size and the ratio limit, so nothing is inflated.
    const bomb = zipSync({ 'word/document.xml': new Uint8Array(200 * 1024 * 1024) }, { level: 9 });
    expect(bomb.length).toBeLessThan(1024 * 1024);
    expect(await extract('application/octet-stream', 'bomb.docx', Buffer.from(bomb))).toMatchObject({
      kind: 'none',
      modality: 'document',
      reason: expect.stringMatching(/inflates to over|compresses over/),
    });
    const put = await d.put('bombs/bomb.docx', bomb, { 'content-type': 'application/octet-stream' });
    expect(put.status).toBe(200);
    expect((await d.put('bombs/after.html', '<p>afterbombword</p>', { 'content-type': 'text/html' })).status).toBe(200);
    // Indexed by path and metadata: search finds it by name.
    await until(
      'bomb by path',
      () => search('bomb'),
      (h) => h.some((x) => x.path === 'bombs/bomb.docx'),
    );
    const after = await until(
      'next file',
      () => find('afterbombword'),
      (h) => h.length === 1,
    );
    expect(after[0]).toMatchObject({ path: 'bombs/after.html', anchor: { heading: '' } });
    // The state is on the record MCP lookup shows.
    const s = await mcpClient(api, d.apiKey);
    try {
      const bombRecord = await s.ok<any>('lookup', { ref: 'bombs/bomb.docx' });
      expect(bombRecord.extraction).toMatch(/^failed: (entry word\/document.xml inflates to over|.*compresses over)/);
      expect(bombRecord._text).toContain('extraction: failed: ');
      expect((await s.ok<any>('lookup', { ref: 'bombs/after.html' })).extraction).toBe('done');
    } finally {
      await s.close();
    }
    // And on the REST record of the artifact as it is now (by path and by id); not on a list.
    const meta = (await d.get('/v0/artifacts/bombs/bomb.docx/meta')).json;
    expect(meta.extraction).toMatch(/^failed: /);
    expect((await d.get(`/v0/artifacts/${meta.art_id}`)).json.extraction).toBe(meta.extraction);
    expect((await d.get('/v0/artifacts/bombs/after.html/meta')).json.extraction).toBe('done');
    const listed = (await d.get('/v0/artifacts?prefix=bombs/')).json.items as Record<string, unknown>[];
    expect(listed.every((a) => !('extraction' in a))).toBe(true);
  }, 120_000);

  it('scans past the OCR budget are refused with the state set; the worker indexes the next file', async (ctx) => {
    if (unavailable) return ctx.skip();
    expect((await d.put('scans/p60.pdf', scans.pages60!, { 'content-type': 'application/pdf' })).status).toBe(200);
    expect((await d.put('scans/p10000.pdf', scans.pages10000!, { 'content-type': 'application/pdf' })).status).toBe(
      200,
    );
    expect((await d.put('scans/next.html', '<p>afterscanword</p>', { 'content-type': 'text/html' })).status).toBe(200);
    await until(
      'next file',
      () => find('afterscanword'),
      (h) => h.length === 1,
    );
    const s = await mcpClient(api, d.apiKey);
    try {
      const state = async (ref: string) => (await s.ok<any>('lookup', { ref })).extraction as string | null;
      await until(
        'states',
        () => Promise.all([state('scans/p60.pdf'), state('scans/p10000.pdf')]),
        (v) => v.every(Boolean),
      );
      expect(await state('scans/p60.pdf')).toBe('failed: 60 pages have no text layer: over the OCR budget of 50 pages');
      // 10,000 pages: refused by a budget (the page cap, or the box's memory or time before it).
      expect(await state('scans/p10000.pdf')).toMatch(
        /^failed: (10000 pages have no text layer|decoding it needs|took)/,
      );
    } finally {
      await s.close();
    }
    // Indexed by path and metadata.
    expect((await search('p10000')).map((h) => h.path)).toEqual(['scans/p10000.pdf']);
  }, 180_000);

  it('an improved extractor: the sweep re-extracts every file an older version made', async () => {
    const put = await d.put('sweep/page.html', '<h1>Old</h1><p>sweepmarkerword</p>', { 'content-type': 'text/html' });
    await until(
      'indexed',
      () => find('sweepmarkerword'),
      (h) => h.length === 1,
    );
    const extractorOf = async () =>
      (await sqlOn(api, 'select extractor from search_documents where art_id = ?', [put.json.art_id]))[0]?.extractor;
    expect(await extractorOf()).toBe('html@1');
    // As if an older html extractor had made these passages.
    await sqlOn(api, `update search_documents set extractor = 'html@0' where art_id = ?`, [put.json.art_id]);
    const swept = await sweepSearchIndex(api.ctx, { graceS: 0, driveId: d.driveId });
    expect(swept?.reindexed).toBe(1);
    await until('re-extracted', extractorOf, (v) => v === 'html@1');
  }, 120_000);
});
