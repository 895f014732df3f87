import { request } from 'node:http';
import { connect } from 'node:net';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import type { TestApi } from '../helpers/api.js';
import { type DriveClient, sqlOn, useTestApi } from '../artifacts/client.js';
import { mcpClient } from '../mcp/helpers.js';

let api: TestApi;
let d: DriveClient;
useTestApi({}, (a, dc) => {
  api = a;
  d = dc;
});

/** A request sent byte for byte (fetch would refuse a NUL in a header or re-encode the path). */
function raw(method: string, path: string, opts: { headers?: Record<string, string>; body?: Buffer } = {}) {
  const url = new URL(api.url);
  return new Promise<{ status: number; code?: string; contentType?: string }>((resolve, reject) => {
    const req = request(
      { host: url.hostname, port: url.port, method, path, headers: { ...d.auth, ...opts.headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          let code: string | undefined;
          try {
            code = JSON.parse(Buffer.concat(chunks).toString('utf8'))?.detail?.error?.code;
          } catch {
            code = undefined;
          }
          resolve({ status: res.statusCode ?? 0, code, contentType: res.headers['content-type'] });
        });
      },
    );
    req.on('error', reject);
    req.end(opts.body);
  });
}

/** Rows the drive holds, so each case can show that nothing was written. */
async function written() {
  const [a] = await sqlOn(
    api,
    `select (select count(*) from artifacts where drive_id = ?) a, (select count(*) from folders where drive_id = ?) f,
    (select count(*) from events where drive_id = ?) e, (select count(*) from upload_sessions where drive_id = ?) u`,
    [d.driveId, d.driveId, d.driveId, d.driveId],
  );
  return a;
}

describe('bad input is a 4xx in the envelope, and writes nothing', () => {
  it('undecodable percent-encoding in a path segment', async () => {
    const before = await written();
    for (const [method, path] of [
      ['GET', '/v0/artifacts/%FF/meta'],
      ['GET', '/v0/artifacts/a%/meta'],
      ['GET', '/v0/folders/%E0%80'],
      ['DELETE', '/v0/artifacts/%FF'],
      ['GET', '/v0/artifacts/%C3/download-url'],
      ['POST', '/v0/uploads/%00%FF/commit'],
      ['GET', `/v0/drives/%FF/trash`],
      ['PUT', '/v0/artifacts/x%FFy'],
      ['POST', '/v0/folders/%FF'],
      ['PATCH', '/v0/folders/%FF'],
    ]) {
      const r = await raw(method, path);
      expect([method, path, r.status, r.code]).toEqual([method, path, 400, 'INVALID_REQUEST']);
    }
    expect(await written()).toEqual(before);
  });

  it('a NUL byte in a query string, on search, find, artifacts and events', async () => {
    for (const path of [
      '/v0/search?q=a%00b',
      '/v0/search?q=a&prefix=x%00',
      '/v0/find?q=a%00',
      '/v0/find?q=a&file_type=%00',
      '/v0/artifacts?prefix=a%00',
      '/v0/artifacts?label=a%00',
      '/v0/artifacts?file_type=%00',
      '/v0/events?action=a%00',
      '/v0/events?art_id=%00',
      '/v0/search?q=a&label=%00',
    ]) {
      const r = await raw('GET', path);
      expect([path, r.status, r.code]).toEqual([path, 400, 'INVALID_REQUEST']);
    }
  });

  it('a NUL byte in a header value is refused by the HTTP parser before any route runs', async () => {
    const before = await written();
    const url = new URL(api.url);
    const head = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(url.port), url.hostname, () => {
        socket.end(
          `PUT /v0/artifacts/nul/h HTTP/1.1\r\nHost: x\r\nAuthorization: ${d.auth.authorization}\r\nX-Drive-Actor: a\0b\r\nContent-Length: 1\r\n\r\nx`,
        );
      });
      let text = '';
      socket.on('data', (c: Buffer) => (text += c.toString('latin1')));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    expect(head).toMatch(/^HTTP\/1\.1 400 /);
    expect(await written()).toEqual(before);
  });

  it('\\u0000 inside JSON strings: folder description, X-Drive-Metadata, X-Drive-Source, upload metadata, copy source', async () => {
    const a = (await d.put('nul/src', 'x')).json;
    await d.call('POST', '/v0/folders/nul-ok', { json: {} });
    const before = await written();
    const cases: [string, Promise<{ status: number; code?: string }>][] = [
      ['folder create', d.call('POST', '/v0/folders/nul-f', { json: { description: 'a\u0000b' } })],
      ['folder patch', d.call('PATCH', '/v0/folders/nul-ok', { json: { description: 'a\u0000' } })],
      ['metadata header', d.put('nul/m', 'x', { 'x-drive-metadata': '{"k":"a\\u0000"}' })],
      ['metadata key', d.put('nul/k', 'x', { 'x-drive-metadata': '{"a\\u0000":1}' })],
      ['source header', d.put('nul/s', 'x', { 'x-drive-source': '{"refs":[{"type":"t","id":"a\\u0000"}]}' })],
      [
        'upload metadata',
        d.call('POST', '/v0/uploads', { json: { path: 'nul/u', size_bytes: 10, metadata: { k: '\u0000' } } }),
      ],
      [
        'copy source',
        d.call('POST', `/v0/artifacts/${a.art_id}/copy`, {
          json: { path: 'nul/c', source: { refs: [{ type: 't', id: '\u0000' }] } },
        }),
      ],
    ];
    for (const [name, p] of cases) {
      const r = await p;
      expect([name, r.status >= 400 && r.status < 500, r.code]).toEqual([
        name,
        true,
        expect.stringMatching(/^INVALID_/),
      ]);
    }
    expect(await written()).toEqual(before);
  });

  it('\\u0000 nested deeper than 64 levels, and nesting past 64 levels at all: 400 on every door, nothing written (was 500)', async () => {
    const nest = (levels: number, leaf: unknown): unknown => (levels === 0 ? leaf : { k: nest(levels - 1, leaf) });
    await d.put('deep/src', 'x');
    const before = await written();
    const deepNul = nest(70, 'a\u0000');
    const cases: [string, Promise<{ status: number; code?: string }>][] = [
      ['metadata header', d.put('deep/m', 'x', { 'x-drive-metadata': JSON.stringify(deepNul) })],
      [
        'upload metadata',
        d.call('POST', '/v0/uploads', { json: { path: 'deep/u', size_bytes: 10, metadata: deepNul } }),
      ],
      [
        'upload metadata, no NUL',
        d.call('POST', '/v0/uploads', { json: { path: 'deep/u', size_bytes: 10, metadata: nest(70, 'fine') } }),
      ],
    ];
    for (const [name, p] of cases) {
      const r = await p;
      expect([name, r.status, r.code]).toEqual([name, 400, expect.stringMatching(/^INVALID_/)]);
    }
    // The same over MCP (set_metadata): a tool error with the same code, not an internal error.
    const mcp = await mcpClient(api, d.auth.authorization.slice('Bearer '.length));
    try {
      const err = await mcp.fail('set_metadata', { ref: 'deep/src', metadata: deepNul });
      expect(err.code).toMatch(/^INVALID_/);
    } finally {
      await mcp.close();
    }
    expect(await written()).toEqual(before);
  });

  it('a body with Content-Encoding: gzip that is not gzip keeps its 4xx', async () => {
    const r = await raw('POST', '/v0/folders/gz', {
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: Buffer.from('{"description":"x"}'),
    });
    expect(r.status).toBe(400);
    expect(r.code).toBe('INVALID_REQUEST');
    // Real gzip is accepted.
    const ok = await raw('POST', '/v0/folders/gz', {
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: gzipSync('{"description":"x"}'),
    });
    expect(ok.status).toBe(201);
  });
});
