import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { useTestApi, type DriveClient } from '../artifacts/client.js';
import type { TestApi } from '../helpers/api.js';

/** Issue 37, findings 6, 7, 8, 10 and 12, over HTTP against the real stack. */
let api: TestApi;
let d: DriveClient;
useTestApi({}, (a, client) => {
  api = a;
  d = client;
});

describe('webhook addresses (finding 6)', () => {
  it('refuses every IPv6 form that embeds a private IPv4 address, the translation ranges and other ports', async () => {
    for (const url of [
      'http://[::a00:1]/', // IPv4-compatible 10.0.0.1
      'http://[64:ff9b::a00:1]/', // NAT64
      'http://[2002:a00:1::]/', // 6to4
      'http://[::ffff:0:a00:1]/', // IPv4-translated
      'http://[fec0::1]/', // site-local
      'http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/', // Teredo
      'http://[64:ff9b:1::a00:1]/', // local-use NAT64
      'http://[::ffff:a9fe:a9fe]/', // mapped 169.254.169.254, hex
      'http://93.184.215.14:8080/hook', // a public address, but not port 80 or 443
      'https://93.184.215.14:22/hook',
    ]) {
      const r = await d.call('POST', '/v0/webhooks', { json: { url } });
      expect([url, r.status, r.code]).toEqual([url, 400, 'WEBHOOK_URL_REFUSED']);
    }
    // The public address on 443 is fine.
    expect((await d.call('POST', '/v0/webhooks', { json: { url: 'https://93.184.215.14/hook' } })).status).toBe(201);
  });

  it('never echoes the address a name resolves to', async () => {
    const r = await d.call('POST', '/v0/webhooks', { json: { url: 'http://localhost.localdomain.invalid/' } });
    expect(r.status).toBe(400);
    const loop = await d.call('POST', '/v0/webhooks', { json: { url: 'http://metadata.google.internal/' } });
    expect(loop.status).toBe(400);
    for (const m of [r.json.detail.error.message, loop.json.detail.error.message])
      expect(m).not.toMatch(/\d+\.\d+\.\d+\.\d+|::/);
  });
});

describe('uploaded scripts (finding 7)', () => {
  it('a public file stored as application/x-javascript is served as an attachment of bytes, never as script', async () => {
    for (const type of ['application/x-javascript', 'application/wasm', 'text/javascript']) {
      const path = `gadget/${type.replace(/\W/g, '-')}.js`;
      const r = await d.put(path, 'alert(document.domain)', { 'content-type': type, 'x-drive-visibility': 'public' });
      expect(r.status).toBeLessThan(300);
      const raw = await fetch(`${api.url}/${d.driveId}/${path}?raw=1`);
      expect(raw.status).toBe(200);
      const served = raw.headers.get('content-type')!;
      // Text goes as text/plain (nosniff: never run); anything else that would run goes as a download.
      expect([type, served]).toEqual([type, expect.stringMatching(/^(text\/plain|application\/octet-stream)/)]);
      if (!served.startsWith('text/plain')) expect(raw.headers.get('content-disposition')).toMatch(/^attachment;/);
      expect(raw.headers.get('x-content-type-options')).toBe('nosniff');
    }
  });
});

/** A request with its path as given (fetch drops dot segments before sending; curl --path-as-is does not). */
function rawRequest(method: string, path: string, body: string, headers: Record<string, string>) {
  return new Promise<{ status: number; json: any }>((resolve, reject) => {
    const req = request(`${api.url}/`, {
      method,
      path,
      headers: { ...headers, 'content-length': Buffer.byteLength(body) },
    });
    req.on('response', (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, json: JSON.parse(text || 'null') }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('paths (finding 8)', () => {
  it("refuses '.' segments with INVALID_PATH, like '..'", async () => {
    for (const path of ['a/./b.md', './x.md', 'a/.', 'x/../y.md', 'a/%2E/b.md']) {
      const r = await rawRequest('PUT', `/v0/artifacts/${path}`, 'x', d.auth);
      expect([path, r.status, r.json?.detail?.error?.code]).toEqual([path, 400, 'INVALID_PATH']);
    }
    const folder = await rawRequest('POST', '/v0/folders/a/./b', '{}', {
      ...d.auth,
      'content-type': 'application/json',
    });
    expect([folder.status, folder.json?.detail?.error?.code]).toEqual([400, 'INVALID_PATH']);
    expect((await d.put('a/.hidden/b.md', 'ok')).status).toBeLessThan(300);
  });
});

describe('signed links (finding 10)', () => {
  it('a content link is refused once its file is deleted', async () => {
    await d.put('signed/x.html', '<p>hi</p>', { 'content-type': 'text/html' });
    const page = await (await fetch(`${api.url}/${d.driveId}/signed/x.html`, { headers: d.auth })).text();
    const src = page.match(/src="([^"]+\/c\/[^"]+)"/)![1]!.replace(/&amp;/g, '&');
    expect((await fetch(src)).status).toBe(200);
    expect((await d.call('DELETE', '/v0/artifacts/signed/x.html')).status).toBe(200);
    expect((await fetch(src)).status).toBe(404);
  });

  it('a presigned download URL lives DOWNLOAD_URL_TTL_S (2 minutes) at most', async () => {
    const r = await d.put('signed/y.txt', 'y');
    const link = await d.get(`/v0/artifacts/${r.json.art_id}/download-url`);
    expect(link.status).toBe(200);
    if (link.json.direct)
      expect(new Date(link.json.expires_at).getTime() - Date.now()).toBeLessThanOrEqual(120_000 + 5_000);
    expect(api.ctx.config.durations.downloadUrlS).toBe(120);
  });
});

describe('answers that carry secrets (finding 12)', () => {
  it('webhook create and rotate, share mint and agent registration are Cache-Control: no-store', async () => {
    const hook = await d.call('POST', '/v0/webhooks', { json: { url: 'https://93.184.215.14/no-store' } });
    expect([hook.status, hook.headers.get('cache-control')]).toEqual([201, 'no-store']);
    const rotated = await d.call('POST', `/v0/webhooks/${hook.json.webhook_id}/rotate`);
    expect(rotated.headers.get('cache-control')).toBe('no-store');
    await d.put('ns/a.md', 'a');
    const share = await d.call('POST', '/v0/shares', { json: { resource: 'ns/a.md' } });
    expect([share.status, share.headers.get('cache-control')]).toEqual([201, 'no-store']);
    const reg = await fetch(`${api.url}/agent/identity`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'anonymous' }),
    });
    expect(reg.headers.get('cache-control')).toBe('no-store');
  });
});
