import { afterAll, describe, expect, it } from 'vitest';
import { useTestApi, type DriveClient } from '../artifacts/client.js';
import type { TestApi } from '../helpers/api.js';
import { mcpClient, type McpSession } from '../mcp/helpers.js';

let api: TestApi;
let d: DriveClient;
let mcp: McpSession | undefined;
useTestApi({}, (a, c) => {
  api = a;
  d = c;
});
afterAll(async () => mcp?.close());

const manyKeys = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]));

describe('metadata within limits (16 KB serialised, 256 keys)', () => {
  it('over either cap is 413 METADATA_TOO_LARGE on every door, and nothing is written', async () => {
    mcp = await mcpClient(api, d.apiKey);
    expect((await d.put('meta/a.txt', 'x', { 'x-drive-metadata': JSON.stringify(manyKeys(200)) })).status).toBe(200);
    const before = (await d.get('/v0/artifacts/meta/a.txt/meta')).json;

    // REST upload header: 300 keys (a header cannot carry 16 KB: the HTTP server's limit comes first).
    const header = await d.put('meta/a.txt', 'changed', { 'x-drive-metadata': JSON.stringify(manyKeys(300)) });
    expect([header.status, header.code]).toEqual([413, 'METADATA_TOO_LARGE']);
    // Nested keys count too.
    const nested = await d.put('meta/n.txt', 'x', {
      'x-drive-metadata': JSON.stringify({ a: manyKeys(150), b: manyKeys(150) }),
    });
    expect(nested.code).toBe('METADATA_TOO_LARGE');
    // Large-upload begin: 20 KB in one value.
    const begin = await d.call('POST', '/v0/uploads', {
      json: { path: 'meta/big.bin', size_bytes: 10, metadata: { note: 'x'.repeat(20_000) } },
    });
    expect([begin.status, begin.code]).toEqual([413, 'METADATA_TOO_LARGE']);
    // MCP: 20,000 keys (2.3 MB) on set_metadata, and on upload.
    expect((await mcp.fail('set_metadata', { ref: 'meta/a.txt', metadata: manyKeys(20_000) })).code).toBe(
      'METADATA_TOO_LARGE',
    );
    expect(
      (await mcp.fail('upload', { path: 'meta/m.txt', content: 'x', metadata: { note: 'y'.repeat(17_000) } })).code,
    ).toBe('METADATA_TOO_LARGE');

    const after = (await d.get('/v0/artifacts/meta/a.txt/meta')).json;
    expect(after).toMatchObject({ version_number: before.version_number, metadata: before.metadata });
    for (const p of ['meta/n.txt', 'meta/m.txt']) expect((await d.get(`/v0/artifacts/${p}/meta`)).status).toBe(404);
  });

  it('at the cap it is accepted', async () => {
    const r = await d.put('meta/ok.txt', 'x', { 'x-drive-metadata': JSON.stringify(manyKeys(256)) });
    expect(r.status).toBe(200);
    expect(Object.keys(r.json.metadata)).toHaveLength(256);
  });
});
