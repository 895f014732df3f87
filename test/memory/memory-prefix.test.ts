import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rows } from '../../src/db/sql.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { createTenant } from '../helpers/tenant.js';
import { claimThroughPages, uniqueEmail, WebClient } from '../identity/helpers.js';

/**
 * The memory prefix per credential (issue 57, docs/decisions/memory-tool.md): an API key minted with `memory_prefix`
 * maps `/memories` to that drive folder, at REST and MCP; keys with other prefixes on the same drive see their own.
 */
let api: TestApi;
let tenant: Awaited<ReturnType<typeof createTenant>>;
beforeAll(async () => {
  api = await startTestApi({
    WRITE_BUDGET_PER_HOUR: '100000',
    WRITE_BUDGET_PER_DRIVE_PER_HOUR: '100000',
    REGISTRATIONS_PER_IP_PER_HOUR: '100000',
    SIGNUPS_PER_IP_PER_HOUR: '100000',
  });
  tenant = await createTenant(api.ctx);
}, 300_000);
afterAll(async () => api?.close());

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

async function mintKey(body: Record<string, unknown>) {
  const res = await fetch(`${api.url}/v0/api-keys`, {
    method: 'POST',
    headers: { ...tenant.auth, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'memory-agent', ...body }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function memory(key: string, cmd: Record<string, unknown>) {
  const res = await fetch(`${api.url}/v0/memory`, {
    method: 'POST',
    headers: { ...bearer(key), 'content-type': 'application/json' },
    body: JSON.stringify(cmd),
  });
  expect(res.status, JSON.stringify(cmd)).toBe(200);
  return (await res.json()) as { result: string; is_error: boolean };
}

const listing = async (key: string, path = '/memories') =>
  (await memory(key, { command: 'view', path })).result
    .split('\n')
    .slice(1)
    .map((l) => l.split('\t')[1]);

const drivePaths = async () =>
  rows<{ path: string; filename: string | null }>(
    api.ctx.orm.em.fork(),
    'select path, filename from artifacts where drive_id = ? and deleted_at is null order by path',
    [tenant.driveId],
  );

describe('POST /v0/api-keys memory_prefix', () => {
  it('answers the prefix it stored (a trailing slash dropped) and the default memories when none is given', async () => {
    const set = await mintKey({ memory_prefix: 'agents/x/mem/' });
    expect(set.status).toBe(201);
    expect(set.body.memory_prefix).toBe('agents/x/mem');
    const unset = await mintKey({});
    expect(unset.status).toBe(201);
    expect(unset.body.memory_prefix).toBe('memories');
    expect((await mintKey({ memory_prefix: '_wikis/mem' })).status).toBe(201);
  });

  it('refuses a prefix that breaks the path rule, escapes or lies under _wiki/ with 422 (the validation-error body)', async () => {
    for (const bad of ['../x', 'a/../b', '_wiki/x', '_wiki', '/abs', 'a b', 'a//b', './a', 'ä', '', 'x'.repeat(201)]) {
      const r = await mintKey({ memory_prefix: bad });
      const detail = (r.body.detail as { loc: string[] }[] | undefined)?.[0];
      expect([r.status, detail?.loc], `${bad} ${JSON.stringify(r.body)}`).toEqual([422, ['body', 'memory_prefix']]);
    }
  });
});

describe('the memory tool under a key’s memory prefix', () => {
  it('writes /memories under the key’s prefix, names round trip, and other prefixes do not see it', async () => {
    const a = String((await mintKey({ memory_prefix: 'agents/a/mem' })).body.api_key);
    const b = String((await mintKey({ memory_prefix: 'agents/b/mem' })).body.api_key);
    expect((await memory(a, { command: 'create', path: '/memories/x.md', file_text: 'alpha\n' })).is_error).toBe(false);
    const created = await memory(a, { command: 'create', path: '/memories/notes/café notes.md', file_text: 'n\n' });
    expect(created.result).toBe('File created successfully at: /memories/notes/café notes.md');
    await memory(a, { command: 'create', path: '/memories/d1/d2/d3/deep.md', file_text: 'deep\n' });
    await memory(tenant.apiKey, { command: 'create', path: '/memories/default.md', file_text: 'd\n' });
    await memory(b, { command: 'create', path: '/memories/y.md', file_text: 'beta\n' });

    const paths = await drivePaths();
    expect(paths.map((p) => p.path)).toEqual([
      'agents/a/mem/d1/d2/d3/deep.md',
      'agents/a/mem/notes/cafe-notes.md',
      'agents/a/mem/x.md',
      'agents/b/mem/y.md',
      'memories/default.md',
    ]);
    expect(paths.find((p) => p.path.endsWith('cafe-notes.md'))?.filename).toBe('café notes.md');

    // Two levels below the prefix, never above it; the header keeps the model's /memories.
    const view = await memory(a, { command: 'view', path: '/memories' });
    expect(view.result.split('\n')[0]).toBe(
      "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items:",
    );
    expect(await listing(a)).toEqual([
      '/memories',
      '/memories/d1/',
      '/memories/d1/d2/',
      '/memories/notes/',
      '/memories/notes/café notes.md',
      '/memories/x.md',
    ]);
    expect(await listing(b)).toEqual(['/memories', '/memories/y.md']);
    expect(await listing(tenant.apiKey)).toEqual(['/memories', '/memories/default.md']);
    expect((await memory(b, { command: 'view', path: '/memories/x.md' })).is_error).toBe(true);
    expect((await memory(a, { command: 'view', path: '/memories/x.md' })).result).toBe(
      "Here's the content of /memories/x.md with line numbers:\n     1\talpha\n     2\t",
    );

    // Edits, rename (with new parents) and delete stay under the prefix.
    await memory(a, { command: 'str_replace', path: '/memories/x.md', old_str: 'alpha', new_str: 'gamma' });
    await memory(a, { command: 'insert', path: '/memories/x.md', insert_line: 0, insert_text: 'top' });
    const renamed = await memory(a, { command: 'rename', old_path: '/memories/x.md', new_path: '/memories/r/z.md' });
    expect(renamed.result).toBe('Successfully renamed /memories/x.md to /memories/r/z.md');
    await memory(a, { command: 'delete', path: '/memories/d1' });
    expect((await drivePaths()).map((p) => p.path).filter((p) => p.startsWith('agents/a/'))).toEqual([
      'agents/a/mem/notes/cafe-notes.md',
      'agents/a/mem/r/z.md',
    ]);
    expect((await memory(a, { command: 'view', path: '/memories/r/z.md' })).result).toContain('1\ttop\n     2\tgamma');
    expect((await memory(a, { command: 'delete', path: '/memories' })).result).toBe(
      'Cannot delete the /memories directory itself',
    );
  });

  it('the MCP memory tool uses the key’s prefix too', async () => {
    const key = String((await mintKey({ memory_prefix: 'agents/mcp/memories' })).body.api_key);
    await memory(key, { command: 'create', path: '/memories/rest.md', file_text: 'r\n' });
    const client = new Client({ name: 'memory-prefix', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${api.url}/mcp?tools=memory`), {
        requestInit: { headers: bearer(key) },
      }),
    );
    try {
      const call = async (args: Record<string, unknown>) =>
        ((await client.callTool({ name: 'memory', arguments: args })) as CallToolResult).content[0] as { text: string };
      expect((await call({ command: 'create', path: '/memories/mcp.md', file_text: 'm\n' })).text).toBe(
        'File created successfully at: /memories/mcp.md',
      );
      const text = (await call({ command: 'view', path: '/memories' })).text;
      expect(text.split('\n').slice(2)).toEqual(['2B\t/memories/mcp.md', '2B\t/memories/rest.md']);
    } finally {
      await client.close();
    }
    const paths = (await drivePaths()).map((p) => p.path).filter((p) => p.startsWith('agents/mcp/'));
    expect(paths).toEqual(['agents/mcp/memories/mcp.md', 'agents/mcp/memories/rest.md']);
  });
});

describe('the dashboard’s key form', () => {
  it('mints a key with a memory folder, shows it, and refuses a folder that breaks the rule (422)', async () => {
    const web = new WebClient(api.url);
    await web.signUp(uniqueEmail('memory-folder'));
    const reg = await claimThroughPages(api, web);
    const csrf = WebClient.csrfOf((await web.get('/settings/api-keys')).body);
    const form = { csrf, drive_id: reg.drive_id, label: 'web', access: 'read_write' };
    const bad = await web.post('/settings/api-keys', { ...form, memory_prefix: '_wiki/mem' });
    expect(bad.res.status).toBe(422);
    expect(bad.body).toContain('not under _wiki/');
    const minted = await web.post('/settings/api-keys', { ...form, memory_prefix: 'agents/web/mem' });
    expect(minted.res.status).toBe(303);
    const shown = (await web.get('/settings/api-keys')).body;
    expect(shown).toContain('<code>agents/web/mem/</code>');
    const key = /ad_live_[\w-]{20,}/.exec(shown)![0];
    await memory(key, { command: 'create', path: '/memories/web.md', file_text: 'w\n' });
    const meta = await fetch(`${api.url}/v0/artifacts/agents/web/mem/web.md/meta`, { headers: bearer(key) });
    expect(meta.status).toBe(200);
  });
});
