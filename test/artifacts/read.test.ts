import { describe, expect, it } from 'vitest';
import type { TestApi } from '../helpers/api.js';
import { type DriveClient, driveClient, useTestApi } from './client.js';

let api: TestApi;
let d: DriveClient;
useTestApi({ SIGNED_DOWNLOAD_THRESHOLD_BYTES: '100' }, (a, dc) => {
  api = a;
  d = dc;
});

describe('reading artifacts', () => {
  it('get, meta by id and by path return the same record; other drives get 404', async () => {
    const a = (await d.put('r/one.txt', 'one', { 'content-type': 'text/plain' })).json;
    // The write answers before the indexer reaches it; the record then says when it became searchable.
    expect(a.indexed_at).toBeNull();
    let indexedAt: string | null = null;
    for (const end = Date.now() + 30_000; !indexedAt && Date.now() < end; await new Promise((r) => setTimeout(r, 50))) {
      indexedAt = (await d.get(`/v0/artifacts/${a.art_id}`)).json.indexed_at;
    }
    expect(Date.parse(indexedAt!)).toBeGreaterThanOrEqual(Date.parse(a.updated_at));
    const byId = await d.get(`/v0/artifacts/${a.art_id}`);
    const metaId = await d.get(`/v0/artifacts/${a.art_id}/meta`);
    const metaPath = await d.get(`/v0/artifacts/r/one.txt/meta`);
    // A read of one artifact also says how its text was read (src/history/as-of.ts); the write's answer does not.
    expect(a).not.toHaveProperty('extraction');
    expect(byId.json.extraction).toBe('done');
    const indexed = { ...a, indexed_at: indexedAt, extraction: 'done' };
    expect(byId.json).toEqual(indexed);
    expect(metaId.json).toEqual(indexed);
    expect(metaPath.json).toEqual(indexed);
    const other = await driveClient(api);
    const foreign = await other.get(`/v0/artifacts/${a.art_id}`);
    expect([foreign.status, foreign.code]).toEqual([404, 'ARTIFACT_NOT_FOUND']);
    expect((await other.get(`/v0/artifacts/r/one.txt/meta`)).status).toBe(404);
    expect((await other.get(`/v0/artifacts/${a.art_id}/download`)).status).toBe(404);
  });

  it('downloads raw bytes as an attachment with nosniff, CSP, ETag, If-None-Match and Range', async () => {
    const html = '<html><script>alert(1)</script></html>';
    const a = (await d.put('r/page.html', html, { 'content-type': 'text/html' })).json;
    const dl = await d.get(`/v0/artifacts/${a.art_id}/download`);
    expect(dl.status).toBe(200);
    expect(dl.bytes.toString()).toBe(html);
    expect(dl.headers.get('content-disposition')).toMatch(/^attachment; filename="page.html"/);
    expect(dl.headers.get('x-content-type-options')).toBe('nosniff');
    expect(dl.headers.get('content-security-policy')).toContain('sandbox');
    expect(dl.headers.get('etag')).toBe(`"${a.hash}"`);
    const cached = await d.get(`/v0/artifacts/${a.art_id}/download`, { 'if-none-match': `"${a.hash}"` });
    expect(cached.status).toBe(304);
    const part = await d.get(`/v0/artifacts/${a.art_id}/download`, { range: 'bytes=6-13' });
    expect(part.status).toBe(206);
    expect(part.bytes.toString()).toBe('<script>');
    expect(part.headers.get('content-range')).toBe(`bytes 6-13/${html.length}`);
    const suffix = await d.get(`/v0/artifacts/${a.art_id}/download`, { range: 'bytes=-7' });
    expect(suffix.bytes.toString()).toBe('</html>');
    const bad = await d.get(`/v0/artifacts/${a.art_id}/download`, { range: `bytes=${html.length}-` });
    expect(bad.status).toBe(416);
  });

  it('versions: list newest first with cursor pages, get one, download one', async () => {
    let a: any;
    for (let i = 1; i <= 5; i++)
      a = (await d.put('r/v.txt', `content ${i}`, { 'x-drive-change-summary': `rev ${i}`, 'x-drive-actor': 'bot' }))
        .json;
    const p1 = await d.get(`/v0/artifacts/${a.art_id}/versions?limit=2`);
    expect(p1.json.items.map((v: any) => v.version_number)).toEqual([5, 4]);
    expect(p1.json.next_cursor).toEqual(expect.any(String));
    const p2 = await d.get(`/v0/artifacts/${a.art_id}/versions?limit=2&cursor=${p1.json.next_cursor}`);
    expect(p2.json.items.map((v: any) => v.version_number)).toEqual([3, 2]);
    const p3 = await d.get(`/v0/artifacts/${a.art_id}/versions?limit=2&cursor=${p2.json.next_cursor}`);
    expect(p3.json.items.map((v: any) => v.version_number)).toEqual([1]);
    expect(p3.json.next_cursor).toBeNull();
    const v2 = await d.get(`/v0/artifacts/${a.art_id}/versions/2`);
    expect(v2.json).toMatchObject({
      art_id: a.art_id,
      version_number: 2,
      change_summary: 'rev 2',
      actor_name: 'bot',
      size_bytes: 9,
    });
    expect((await d.get(`/v0/artifacts/${a.art_id}/versions/2/download`)).bytes.toString()).toBe('content 2');
    expect((await d.get(`/v0/artifacts/${a.art_id}/versions/9`)).status).toBe(404);
    expect((await d.get(`/v0/artifacts/${a.art_id}/versions/0`)).status).toBe(422);
    expect((await d.get(`/v0/artifacts/${a.art_id}/versions?limit=101`)).status).toBe(422);
    expect((await d.get(`/v0/artifacts/${a.art_id}/versions?cursor=%%%`)).code).toBe('BAD_CURSOR');
  });

  it('download-url: proxy below the threshold, signed direct URL above it', async () => {
    const small = (await d.put('r/small.txt', 'tiny')).json;
    const s = await d.get(`/v0/artifacts/${small.art_id}/download-url`);
    expect(s.json).toMatchObject({
      url: `${api.url}/v0/artifacts/${small.art_id}/download`,
      direct: false,
      expires_at: null,
    });
    const byPath = await d.get(`/v0/artifacts/r/small.txt/download-url`);
    expect(byPath.json.url).toBe(`${api.url}/v0/artifacts/${small.art_id}/download`);
    const body = 'x'.repeat(500);
    const big = (await d.put('r/big.bin', body)).json;
    const b = await d.get(`/v0/artifacts/${big.art_id}/download-url`);
    expect(b.json.direct).toBe(true);
    expect(new Date(b.json.expires_at).getTime()).toBeGreaterThan(Date.now());
    const direct = await fetch(b.json.url);
    expect(direct.status).toBe(200);
    expect(await direct.text()).toBe(body);
    const v1 = await d.get(`/v0/artifacts/${small.art_id}/versions/1/download-url`);
    expect(v1.json.url).toBe(`${api.url}/v0/artifacts/${small.art_id}/versions/1/download`);
  });

  it('lists by path with prefix, AND-ed labels, file_type and keyset cursors', async () => {
    const l = await driveClient(api);
    await l.put('docs/b.md', 'b', { 'x-drive-labels': 'draft,report' });
    await l.put('docs/a.md', 'a', { 'x-drive-labels': 'draft' });
    await l.put('docs/c.png', 'c', { 'content-type': 'image/png' });
    await l.put('docs_x/z.py', 'z');
    await l.put('other/d.txt', 'd', { 'x-drive-labels': 'report' });
    const all = await l.get('/v0/artifacts');
    expect(all.json.items.map((i: any) => i.path)).toEqual([
      'docs/a.md',
      'docs/b.md',
      'docs/c.png',
      'docs_x/z.py',
      'other/d.txt',
    ]);
    expect((await l.get('/v0/artifacts?prefix=docs/')).json.items).toHaveLength(3);
    expect((await l.get('/v0/artifacts?prefix=docs_')).json.items.map((i: any) => i.path)).toEqual(['docs_x/z.py']);
    expect((await l.get('/v0/artifacts?label=draft&label=report')).json.items.map((i: any) => i.path)).toEqual([
      'docs/b.md',
    ]);
    expect((await l.get('/v0/artifacts?label=report')).json.items).toHaveLength(2);
    expect((await l.get('/v0/artifacts?file_type=image')).json.items.map((i: any) => i.path)).toEqual(['docs/c.png']);
    expect((await l.get('/v0/artifacts?file_type=code')).json.items.map((i: any) => i.path)).toEqual(['docs_x/z.py']);
    const seen: string[] = [];
    let cursor = '';
    for (;;) {
      const page = await l.get(`/v0/artifacts?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      seen.push(...page.json.items.map((i: any) => i.path));
      if (!page.json.next_cursor) break;
      cursor = page.json.next_cursor;
    }
    expect(seen).toEqual(all.json.items.map((i: any) => i.path));
    const badCursor = await l.get('/v0/artifacts?cursor=not-a-cursor');
    expect([badCursor.status, badCursor.code]).toEqual([400, 'BAD_CURSOR']);
    expect((await l.get('/v0/artifacts?limit=0')).status).toBe(422);
    expect((await l.get('/v0/artifacts?file_type=nope')).status).toBe(422);
  });
});
