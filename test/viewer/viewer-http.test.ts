import { describe, expect, it } from 'vitest';
import type { DriveClient } from '../artifacts/client.js';
import type { TestApi } from '../helpers/api.js';
import { grant, useParties, type Parties } from '../sharing/helpers.js';

/** The viewer over plain HTTP: path view, permalink, head, raw/download, folders, versions, and the access rule. */
let p: Parties;
useParties((ready) => (p = ready));

const view = (api: TestApi, path: string, headers: Record<string, string> = {}) =>
  fetch(`${api.url}${path}`, { headers, redirect: 'manual' });

async function put(d: DriveClient, path: string, body: string, type: string, extra: Record<string, string> = {}) {
  const r = await d.put(path, body, { 'content-type': type, ...extra });
  expect(r.status, JSON.stringify(r.json)).toBeLessThan(300);
  return r.json as { art_id: string; url: string; permalink: string; version_number: number; drive_id: string };
}

describe('viewer URLs', () => {
  it('url renders the current version for the owner, public for anyone, private is 404 with no credentials', async () => {
    const { api, a } = p;
    const priv = await put(a, 'v/private.md', '# Secret plan\n', 'text/markdown');
    const pub = await put(a, 'v/public.md', '# Hello *world*\n', 'text/markdown', { 'x-drive-visibility': 'public' });
    expect(priv.url).toBe(`${api.url}/${a.driveId}/v/private.md`);

    const owner = await view(api, `/${a.driveId}/v/private.md`, a.auth);
    expect(owner.status).toBe(200);
    expect(owner.headers.get('content-security-policy')).toMatch(/script-src 'none'/);
    expect(await owner.text()).toContain('<h1>Secret plan</h1>');

    const anon = await view(api, `/${a.driveId}/v/private.md`);
    expect(anon.status).toBe(404);
    expect(await anon.text()).not.toContain('Secret');
    // The same 404 as a path that does not exist.
    expect((await view(api, `/${a.driveId}/v/nothing.md`)).status).toBe(404);
    expect((await view(api, `/${a.driveId}/v/private.md`, p.x.auth)).status).toBe(404);
    expect((await view(api, `/${a.driveId}/v/private.md`, { authorization: 'Bearer ad_live_bogus' })).status).toBe(404);

    const pubRes = await view(api, `/${a.driveId}/v/public.md`);
    expect(pubRes.status).toBe(200);
    expect(await pubRes.text()).toContain('<em>world</em>');
    expect(pub.permalink).toBe(`${api.url}/a/${pub.art_id}`);
  });

  it('permalink redirects to the path forwarding only raw and download; head answers the version, 404 without login redirect', async () => {
    const { api, a } = p;
    const art = await put(a, 'v/perma.txt', 'one', 'text/plain');
    await put(a, 'v/perma.txt', 'two', 'text/plain');
    const r = await view(api, `/a/${art.art_id}?raw=1&download=1&evil=1`, a.auth);
    expect(r.status).toBe(302);
    expect(r.headers.get('location')).toBe(`${api.url}/${a.driveId}/v/perma.txt?raw=1&download=1`);
    expect((await view(api, `/a/${art.art_id}`)).status).toBe(404);

    const head = await view(api, `/a/${art.art_id}/head`, a.auth);
    expect(head.status).toBe(200);
    expect(await head.json()).toEqual({ version: 2 });
    for (const res of [await view(api, `/a/${art.art_id}/head`), await view(api, '/a/art_nope/head', a.auth)]) {
      expect(res.status).toBe(404);
      expect(res.headers.get('location')).toBeNull();
      expect(res.headers.get('content-type')).toMatch(/json/);
    }
  });

  it('raw serves text types as text/plain with nosniff (HTML and SVG too); download is an attachment', async () => {
    const { api, a } = p;
    await put(a, 'v/page.html', '<script>alert(1)</script>', 'text/html', { 'x-drive-visibility': 'public' });
    await put(
      a,
      'v/pic.svg',
      '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>',
      'image/svg+xml',
    );
    for (const path of ['v/page.html', 'v/pic.svg']) {
      const raw = await view(api, `/${a.driveId}/${path}?raw=1`, a.auth);
      expect(raw.status).toBe(200);
      expect(raw.headers.get('content-type')).toBe('text/plain; charset=utf-8');
      expect(raw.headers.get('x-content-type-options')).toBe('nosniff');
      expect(raw.headers.get('content-security-policy')).toMatch(/^sandbox/);
      expect(await raw.text()).toContain('<script>');
    }
    const dl = await view(api, `/${a.driveId}/v/page.html?download=1`);
    expect(dl.status).toBe(200);
    expect(dl.headers.get('content-disposition')).toMatch(/^attachment; filename="page.html"/);
    // The page itself embeds the HTML only from the content origin, in a sandboxed frame.
    const page = await (await view(api, `/${a.driveId}/v/page.html`)).text();
    expect(page).toContain(`src="${api.contentUrl}/c/`);
    expect(page).toMatch(/<iframe[^>]*sandbox="allow-scripts"/);
    expect(page).not.toContain('<script>');
  });

  it('the content origin serves only signed links, sandboxed, never cookies', async () => {
    const { api, a } = p;
    await put(a, 'v/x.html', '<p>hi</p>', 'text/html');
    const page = await (await view(api, `/${a.driveId}/v/x.html`, a.auth)).text();
    const src = page.match(/src="([^"]+\/c\/[^"]+)"/)![1].replace(/&amp;/g, '&');
    const ok = await fetch(src);
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-type')).toMatch(/^text\/html/);
    expect(ok.headers.get('content-security-policy')).toMatch(/^sandbox allow-scripts;/);
    expect(ok.headers.get('content-security-policy')).not.toMatch(/allow-same-origin/);
    expect(ok.headers.get('set-cookie')).toBeNull();
    const tampered = src.replace(
      /\/c\/([^.]+)\.([^/]+)\//,
      // One character of the signature changed, always to a different one.
      (_m, payload: string, sig: string) => `/c/${payload}.${sig[0] === 'A' ? 'B' : 'A'}${sig.slice(1)}/`,
    );
    expect((await fetch(tampered)).status).toBe(404);
    expect((await fetch(`${api.contentUrl}/${a.driveId}/v/x.html`)).status).toBe(404);
  });

  it('renders by type: code with line numbers, JSON pretty, CSV table with a cap, image from the content origin, binary as a card', async () => {
    const { api, a } = p;
    await put(a, 't/main.ts', 'const x: number = 1;\nexport default x;\n', 'text/plain');
    await put(a, 't/data.json', '{"a":[1,2],"b":"<b>"}', 'application/json');
    const rows = ['name,score', ...Array.from({ length: 1200 }, (_, i) => `row${i},${i}`)].join('\n');
    await put(a, 't/table.csv', rows, 'text/csv');
    await put(a, 't/pic.png', 'not really a png', 'image/png');
    await put(a, 't/blob.bin', 'zzz', 'application/octet-stream');
    await put(a, 't/notes.txt', 'plain <text>', 'text/plain');
    const get = async (path: string) => (await view(api, `/${a.driveId}/${path}`, a.auth)).text();
    const code = await get('t/main.ts');
    expect(code).toContain('<pre class="ln" aria-hidden="true">1\n2</pre>');
    expect(code).toContain('hljs-keyword');
    const json = await get('t/data.json');
    expect(json).toContain('&quot;&lt;b&gt;&quot;');
    expect(json).toContain('hljs-attr');
    const csv = await get('t/table.csv');
    expect(csv).toContain('<th>name</th>');
    expect(csv.match(/<tr>/g)!.length).toBe(1001);
    expect(csv).toContain('first 1000 rows');
    expect(await get('t/pic.png')).toMatch(new RegExp(`<img class="content"[^>]*src="${api.contentUrl}/c/`));
    expect(await get('t/blob.bin')).toContain('data-testid="file-card"');
    expect(await get('t/notes.txt')).toContain('plain &lt;text&gt;');
  });

  it('markdown is sanitized: raw HTML, handlers and javascript: links are removed', async () => {
    const { api, a } = p;
    await put(
      a,
      't/evil.md',
      '# T\n\n<script>alert(1)</script>\n<img src=x onerror="alert(1)">\n\n[x](javascript:alert(1))\n\n<iframe src="https://e.example"></iframe>\n\n| a | b |\n|---|---|\n| 1 | 2 |\n',
      'text/markdown',
    );
    const html = await (await view(api, `/${a.driveId}/t/evil.md`, a.auth)).text();
    expect(html).not.toMatch(/<script>alert|onerror|href="javascript:|<iframe/);
    expect(html).toContain('<table>');
  });

  it('version selector shows older versions; ?v=N renders that one', async () => {
    const { api, a } = p;
    await put(a, 'h/notes.md', 'first draft', 'text/markdown');
    await put(a, 'h/notes.md', 'second draft', 'text/markdown');
    const head = await (await view(api, `/${a.driveId}/h/notes.md`, a.auth)).text();
    expect(head).toContain('second draft');
    expect(head).toMatch(/<option\s+value="1"/);
    const old = await (await view(api, `/${a.driveId}/h/notes.md?v=1`, a.auth)).text();
    expect(old).toContain('first draft');
    expect(old).toContain('an older version');
    expect(await (await view(api, `/${a.driveId}/h/notes.md?v=1&raw=1`, a.auth)).text()).toBe('first draft');
  });

  it('folders: /f/{fld_id} redirects to the path; the folder lists its children; grants open folders, others get 404', async () => {
    const { api, a, b } = p;
    await put(a, 'proj/readme.md', 'read me', 'text/markdown');
    await put(a, 'proj/src/app.py', 'print(1)', 'text/x-python');
    const fld = await a.call('POST', '/v0/folders/proj');
    const fldId = (fld.json as { fld_id?: string; id?: string }).fld_id ?? (fld.json as { id: string }).id;
    const r = await view(api, `/f/${fldId}`, a.auth);
    expect(r.status).toBe(302);
    expect(r.headers.get('location')).toBe(`${api.url}/${a.driveId}/proj/`);
    const listing = await (await view(api, `/${a.driveId}/proj/`, a.auth)).text();
    expect(listing).toContain('readme.md');
    expect(listing).toContain('src/');
    expect((await view(api, `/f/${fldId}`, b.auth)).status).toBe(404);
    expect((await view(api, `/${a.driveId}/proj/`, b.auth)).status).toBe(404);
    expect((await view(api, `/${a.driveId}/`, b.auth)).status).toBe(404);
    expect((await grant(a, fldId, { type: 'user', email: b.email }, 'viewer')).status).toBe(201);
    expect((await view(api, `/${a.driveId}/proj/src/app.py`, b.auth)).status).toBe(200);
    expect((await view(api, `/${a.driveId}/proj/`, b.auth)).status).toBe(200);
    const owner = await (await view(api, `/${a.driveId}/`, a.auth)).text();
    expect(owner).toContain('proj/');
  });

  it('share links: /s/{key} shows the resource; rotation kills the old key; password links ask for it', async () => {
    const { api, a } = p;
    const art = await put(a, 's/shared.md', '# Shared doc', 'text/markdown');
    const minted = await a.call('POST', '/v0/shares', { json: { resource: art.art_id, role: 'viewer' } });
    expect(minted.status, JSON.stringify(minted.json)).toBe(201);
    const key = minted.json.share_key as string;
    const page = await view(api, `/s/${key}`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<h1>Shared doc</h1>');
    expect(await (await view(api, `/s/${key}?raw=1`)).text()).toBe('# Shared doc');
    const rotated = await a.call('POST', `/v0/shares/${minted.json.shr_id ?? minted.json.share?.shr_id}/rotate`);
    expect(rotated.status, JSON.stringify(rotated.json)).toBe(200);
    expect((await view(api, `/s/${key}`)).status).toBe(404);
    expect((await view(api, `/s/${rotated.json.share_key}`)).status).toBe(200);
    expect((await view(api, '/s/shk_nothing')).status).toBe(404);
  });

  it('a folder link opens the folders below it and their files; paths outside stay 404', async () => {
    const { api, a } = p;
    await put(a, 'proj2/readme.md', '# Read me', 'text/markdown');
    await put(a, 'proj2/src/lib/util.py', 'print(2)', 'text/x-python');
    await put(a, 'elsewhere.md', '# Not shared', 'text/markdown');
    const fld = await a.call('POST', '/v0/folders/proj2');
    const fldId = (fld.json as { fld_id?: string; id?: string }).fld_id ?? (fld.json as { id: string }).id;
    const minted = await a.call('POST', '/v0/shares', { json: { resource: fldId, role: 'viewer' } });
    const key = minted.json.share_key as string;
    const top = await (await view(api, `/s/${key}`)).text();
    expect(top).toContain(`href="${api.url}/s/${key}/src/"`);
    const src = await view(api, `/s/${key}/src/`);
    expect(src.status).toBe(200);
    expect(await src.text()).toContain(`href="${api.url}/s/${key}/src/lib/"`);
    const file = await view(api, `/s/${key}/src/lib/util.py?raw=1`);
    expect(await file.text()).toBe('print(2)');
    expect((await view(api, `/s/${key}/nope/`)).status).toBe(404);
    expect((await view(api, `/s/${key}/../elsewhere.md`)).status).toBe(404);
  });
});
