import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { createTenant } from '../helpers/tenant.js';
import { mcpClient, type McpSession } from './helpers.js';

/**
 * The protocol's own rules, checked with the official SDK client and raw HTTP: the size of tools/list, JSON-RPC errors
 * where MCP puts them, arguments refused by name, the Origin check, honest capabilities, the spec's codes.
 */
let api: TestApi;
let s: McpSession;
let tenant: Awaited<ReturnType<typeof createTenant>>;

/** tools/list must fit this many characters with every tool (issue 38: 24,000 for all tools). */
const TOOL_LIST_MAX = 24_000;

beforeAll(async () => {
  api = await startTestApi({ MCP_ALLOWED_ORIGINS: 'http://localhost:6274' });
  tenant = await createTenant(api.ctx);
  s = await mcpClient(api, tenant.apiKey);
});
afterAll(async () => {
  await s?.close();
  await api?.close();
});

const post = (body: string, headers: Record<string, string> = {}) =>
  fetch(`${api.url}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${tenant.apiKey}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body,
  });
const rpc = async (message: unknown, headers: Record<string, string> = {}) => {
  const res = await post(JSON.stringify(message), headers);
  return {
    status: res.status,
    body: (await res.json()) as { error?: { code: number; message: string }; result?: any },
  };
};

describe('MCP protocol', () => {
  it('lists every tool within the character budget, with closed, portable input schemas and no output schemas', async () => {
    const res = await rpc({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    const size = JSON.stringify(res.body.result).length;
    console.log(`tools/list: ${res.body.result.tools.length} tools, ${size} characters`);
    expect(size).toBeLessThanOrEqual(TOOL_LIST_MAX);
    const names = (res.body.result.tools as { name: string }[]).map((t) => t.name);
    expect(names).toContain('restore');
    const walk = (node: unknown, at: string) => {
      if (typeof node !== 'object' || node === null) return;
      const o = node as Record<string, unknown>;
      expect(Array.isArray(o.type), `${at}: type union`).toBe(false);
      for (const [k, v] of Object.entries(o)) {
        if (k === 'properties')
          for (const [p, sub] of Object.entries(v as object)) {
            expect(Object.keys(sub as object).length, `${at}.${p}: empty schema`).toBeGreaterThan(0);
            walk(sub, `${at}.${p}`);
          }
        else if (typeof v === 'object') walk(v, `${at}.${k}`);
      }
    };
    for (const t of res.body.result.tools) {
      walk(t.inputSchema, t.name);
      expect(t.outputSchema).toBeUndefined();
    }
  });

  it('announces only capabilities it honours', async () => {
    const caps = s.client.getServerCapabilities();
    expect(caps?.tools).toBeDefined();
    expect(caps?.tools?.listChanged).toBeFalsy();
  });

  it('answers JSON-RPC mistakes with JSON-RPC errors', async () => {
    const unknown = await rpc({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'nope', arguments: {} } });
    expect(unknown.body.error).toMatchObject({ code: -32602 });
    expect(unknown.body.error!.message).toContain('Unknown tool: "nope"');
    expect(unknown.body.error!.message).not.toMatch(/MCP error/);
    // The SDK client surfaces it as a thrown protocol error, not a tool result.
    await expect(s.client.callTool({ name: 'nope', arguments: {} })).rejects.toMatchObject({ code: -32602 });

    const parse = await post('{"jsonrpc": "2.0", "id": 3, "method": ');
    expect(parse.status).toBe(400);
    expect(((await parse.json()) as { error: { code: number } }).error.code).toBe(-32700);

    for (const bad of [{ id: 4, method: 'tools/list' }, { jsonrpc: '2.0', id: 5 }, 42, []]) {
      const r = await rpc(bad);
      expect(r.status, JSON.stringify(bad)).toBe(400);
      expect(r.body.error!.code, JSON.stringify(bad)).toBe(-32600);
    }

    const params = await rpc({ jsonrpc: '2.0', id: 6, method: 'tools/call', params: { name: 7 } });
    expect(params.body.error).toMatchObject({ code: -32602 });
    expect(params.body.error!.message).toMatch(/^Invalid params for tools\/call: "name": expected string/);
    const list = await rpc({ jsonrpc: '2.0', id: 7, method: 'tools/list', params: { cursor: 5 } });
    expect(list.body.error).toMatchObject({ code: -32602 });
    expect(list.body.error!.message).not.toMatch(/MCP error|\[\s*\{/);
  });

  it('refuses misspelled and wrongly typed arguments, naming them', async () => {
    await s.ok('upload', { path: 'zzz/a.txt', content: 'a' });
    const misspelled = await s.fail('list', { path_prefix: 'zzz/' });
    expect(misspelled).toMatchObject({ code: 'VALIDATION_ERROR', arguments: ['path_prefix'] });
    expect(misspelled.message).toContain('unknown argument "path_prefix"');
    expect(misspelled.message).toContain('prefix');
    const typed = await s.fail('read', { ref: 'zzz/a.txt', offset: 'x' });
    expect(typed).toMatchObject({ code: 'VALIDATION_ERROR', arguments: ['offset'] });
    expect(typed.message).not.toMatch(/MCP error/);
    const missing = await s.fail('read', {});
    expect(missing.message).toContain('argument "ref" is required');
    const nested = await s.fail('edit', { ref: 'zzz/a.txt', edits: [{ old_text: 'a', new_text: 'b', all: true }] });
    expect(nested.arguments).toEqual(['edits.0.all']);
  });

  it('checks Origin: a foreign one is 403, ours and none are served', async () => {
    const list = { jsonrpc: '2.0', id: 8, method: 'tools/list' };
    const evil = await rpc(list, { origin: 'http://evil.example' });
    expect(evil.status).toBe(403);
    expect(evil.body.error!.message).toContain('http://evil.example');
    expect((await rpc(list, { origin: new URL(api.url).origin })).status).toBe(200);
    expect((await rpc(list, { origin: 'http://localhost:6274' })).status).toBe(200);
    expect((await rpc(list)).status).toBe(200);
  });

  it('answers _wiki/ deletes and moves with WIKI_RESERVED, as REST does', async () => {
    expect(await s.fail('delete', { ref: '_wiki/entities/ada.md' })).toMatchObject({
      code: 'WIKI_RESERVED',
      status: 403,
    });
    expect((await s.fail('move', { from: '_wiki/concepts/x.md', to: 'x.md' })).code).toBe('WIKI_RESERVED');
    const rest = await fetch(`${api.url}/v0/artifacts/_wiki/entities/ada.md`, {
      method: 'DELETE',
      headers: tenant.auth,
    });
    expect(((await rest.json()) as { detail: { error: { code: string } } }).detail.error.code).toBe('WIKI_RESERVED');
  });
});
