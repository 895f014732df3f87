import { afterAll, describe, expect, it } from 'vitest';
import { useTestApi, type DriveClient } from '../artifacts/client.js';
import type { TestApi } from '../helpers/api.js';
import { mcpClient, type McpSession } from '../mcp/helpers.js';

/** Issue 39: compile infers the entrypoint and engine of a folder; unchanged sources add no PDF version. */
let api: TestApi;
let d: DriveClient;
useTestApi({}, (a, c) => {
  api = a;
  d = c;
});
let mcp: McpSession | undefined;
afterAll(async () => mcp?.close());

describe('compile without an entrypoint', () => {
  it('a folder holding one main.typ compiles with typst; recompiling unchanged sources adds no version', async () => {
    mcp = await mcpClient(api, d.apiKey);
    await d.put('poem/main.typ', '= A poem\n\nRoses.\n');
    await d.put('poem/notes.md', 'not a source');
    const first = await mcp.ok<{ status: string; engine: string; pdf: { path: string } }>('compile', {
      folder: 'poem',
    });
    expect(first).toMatchObject({ status: 'succeeded', pdf: { path: 'poem/main.pdf' } });
    const v1 = (await d.get('/v0/artifacts/poem/main.pdf/meta')).json;
    const second = await mcp.ok<{ status: string }>('compile', { folder: 'poem/' });
    expect(second.status).toBe('succeeded');
    const v2 = (await d.get('/v0/artifacts/poem/main.pdf/meta')).json;
    expect(v2.version_number).toBe(v1.version_number);

    await d.put('two/a.tex', 'x');
    await d.put('two/b.typ', 'y');
    const unsure = await mcp.fail('compile', { folder: 'two' });
    expect(unsure.code).toBe('INVALID_ENTRYPOINT');
    expect(unsure.message).toContain('a.tex, b.typ');
  });
});
