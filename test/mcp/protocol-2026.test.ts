import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { createTenant } from '../helpers/tenant.js';
import { mintApiKey } from '../../src/identity/api-keys.js';
import { mcpClient } from './helpers.js';

/**
 * MCP 2026-07-28 beside 2025-11-25 on one /mcp: the SDK v2 client pinned to the new revision (no fallback) calls
 * every kind of tool, reads files as resources and hears changes on subscriptions/listen; two API processes answer
 * alternate requests of one client; the v1 client still lands on 2025-11-25.
 */
let api: TestApi;
let api2: TestApi;
let tenant: Awaited<ReturnType<typeof createTenant>>;
const TOOL_LIST_MAX = 24_000;

/** A v2 client pinned to 2026-07-28; `urls` are used in turn, one per HTTP request. */
async function modernClient(credential: string, urls: string[]) {
  const used: string[] = [];
  let turn = 0;
  const client = new Client(
    { name: 'drive-test-v2', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  const transport = new StreamableHTTPClientTransport(new URL(`${urls[0]}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${credential}` } },
    fetch: (input, init) => {
      const base = urls[turn++ % urls.length]!;
      used.push(base);
      return fetch(`${base}/mcp`, init);
    },
  });
  await client.connect(transport);
  return { client, used };
}

const textOf = (r: { content: unknown }) => ((r.content as { type: string; text: string }[])[0]?.text ?? '') as string;

beforeAll(async () => {
  api = await startTestApi();
  api2 = await startTestApi();
  tenant = await createTenant(api.ctx);
});
afterAll(async () => {
  await api?.close();
  await api2?.close();
});

describe('MCP 2026-07-28', () => {
  it('a v2 client pinned to 2026-07-28 connects with no fallback and calls every tool kind', async () => {
    const { client } = await modernClient(tenant.apiKey, [api.url]);
    expect(client.getProtocolEra()).toBe('modern');
    expect(client.getDiscoverResult()).toBeDefined();
    expect(client.getServerCapabilities()?.resources?.subscribe).toBe(true);

    const { tools } = await client.listTools();
    const size = JSON.stringify({ tools }).length;
    console.log(`tools/list at 2026-07-28: ${tools.length} tools, ${size} characters`);
    expect(size).toBeLessThanOrEqual(TOOL_LIST_MAX);

    const overview = await client.callTool({ name: 'overview', arguments: {} });
    expect(overview.isError).toBeFalsy();
    const upload = await client.callTool({ name: 'upload', arguments: { path: 'v2/notes.md', content: '# hello v2' } });
    expect(upload.isError, textOf(upload)).toBeFalsy();
    const read = await client.callTool({ name: 'read', arguments: { ref: 'v2/notes.md' } });
    expect(textOf(read)).toContain('# hello v2');
    const grep = await client.callTool({ name: 'grep', arguments: { pattern: 'hello', prefix: 'v2/' } });
    expect(grep.isError, textOf(grep)).toBeFalsy();
    const edit = await client.callTool({
      name: 'edit',
      arguments: { ref: 'v2/notes.md', edits: [{ old_text: 'hello', new_text: 'howdy' }] },
    });
    expect(edit.isError, textOf(edit)).toBeFalsy();
    const moved = await client.callTool({ name: 'move', arguments: { from: 'v2/notes.md', to: 'v2/moved.md' } });
    expect(moved.isError, textOf(moved)).toBeFalsy();

    // A tool error is a result with the REST code; an unknown tool is a protocol error.
    const missing = await client.callTool({ name: 'read', arguments: { ref: 'v2/none.md' } });
    expect(missing.isError).toBe(true);
    expect(JSON.parse(textOf(missing)).error.code).toBe('ARTIFACT_NOT_FOUND');
    await expect(client.callTool({ name: 'nope', arguments: {} })).rejects.toMatchObject({ code: -32602 });
    await client.close();
  });

  it('the v1 client still negotiates 2025-11-25 and sees no subscribe capability', async () => {
    const v1 = await mcpClient(api, tenant.apiKey);
    const transport = v1.client.transport as { protocolVersion?: string } | undefined;
    expect(transport?.protocolVersion).toBe('2025-11-25');
    expect(v1.client.getServerCapabilities()?.resources?.subscribe).toBeFalsy();
    const { tools } = await v1.client.listTools();
    console.log(`tools/list at 2025-11-25: ${tools.length} tools, ${JSON.stringify({ tools }).length} characters`);
    expect((await v1.ok<{ drive: { drive_id: string } }>('overview')).drive.drive_id).toBe(tenant.driveId);
    await v1.close();
  });

  it('two API processes answer alternate requests of one client', async () => {
    const { client, used } = await modernClient(tenant.apiKey, [api.url, api2.url]);
    for (let i = 0; i < 4; i++) {
      const r = await client.callTool({ name: 'upload', arguments: { path: `alt/${i}.md`, content: `n${i}` } });
      expect(r.isError, textOf(r)).toBeFalsy();
    }
    const listed = await client.callTool({ name: 'list', arguments: { prefix: 'alt/' } });
    expect((listed.structuredContent as { items: unknown[] }).items).toHaveLength(4);
    expect(new Set(used)).toEqual(new Set([api.url, api2.url]));
    await client.close();
  });

  it('lists and reads files as drive:/// resources, with a template', async () => {
    const { client } = await modernClient(tenant.apiKey, [api.url]);
    await client.callTool({ name: 'upload', arguments: { path: 'res/a-b.md', content: 'resource text' } });
    const { resources } = await client.listResources();
    const entry = resources.find((r) => r.name === 'res/a-b.md');
    expect(entry?.uri).toBe('drive:///res/a-b.md');
    const read = await client.readResource({ uri: entry!.uri });
    expect(read.contents[0]).toMatchObject({ uri: entry!.uri, text: 'resource text' });
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates[0]?.uriTemplate).toBe('drive:///{+path}');
    // Resource not found is -32602 carrying the URI (2026-07-28), on both eras.
    await expect(client.readResource({ uri: 'drive:///res/none.md' })).rejects.toMatchObject({
      code: -32602,
      data: { uri: 'drive:///res/none.md' },
    });
    await client.close();
  });
});

describe('subscriptions/listen', () => {
  it('reports writes under a folder by another credential, in seq order, none for other folders, across processes', async () => {
    const { client } = await modernClient(tenant.apiKey, [api.url]);
    const updates: { uri: string; seq: number; at: number }[] = [];
    client.setNotificationHandler('notifications/resources/updated', (n) => {
      const meta = (n.params._meta ?? {}) as Record<string, unknown>;
      updates.push({ uri: n.params.uri, seq: Number(meta['agent-drive/seq']), at: Date.now() });
    });
    const sub = await client.listen({ resourceSubscriptions: ['drive:///reports/'] });
    expect(sub.honoredFilter.resourceSubscriptions).toEqual(['drive:///reports/']);

    // Another credential of the same drive writes through the other API process.
    const { key } = await mintApiKey(api.ctx.orm.em.fork(), tenant.driveId, 'other-writer');
    const put = (path: string) =>
      fetch(`${api2.url}/v0/artifacts/${path}`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'text/plain' },
        body: path,
      }).then((r) => expect(r.status).toBe(200));

    const first = Date.now();
    await put('reports/one.md');
    await waitFor(() => updates.length >= 1, 1_000);
    console.log(`subscription: first update ${updates[0]!.at - first} ms after the write was sent`);
    await put('other/ignored.md');
    await put('reports/two.md');
    await put('reports/three.md');
    await waitFor(() => updates.length >= 3, 5_000);
    await new Promise((r) => setTimeout(r, 500));
    expect(updates.map((u) => u.uri)).toEqual([
      'drive:///reports/one.md',
      'drive:///reports/two.md',
      'drive:///reports/three.md',
    ]);
    const seqs = updates.map((u) => u.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    await sub.close();
    expect(await sub.closed).toBe('local');
    await client.close();
  });

  it('never reports another drive’s changes, and refuses URIs that are not drive:///', async () => {
    const other = await createTenant(api.ctx);
    const { client } = await modernClient(tenant.apiKey, [api.url]);
    const updates: string[] = [];
    client.setNotificationHandler('notifications/resources/updated', (n) => void updates.push(n.params.uri));
    const sub = await client.listen({ resourceSubscriptions: ['drive:///'] });
    await fetch(`${api.url}/v0/artifacts/iso/secret.md`, { method: 'PUT', headers: other.auth, body: 'x' });
    await fetch(`${api.url}/v0/artifacts/iso/mine.md`, { method: 'PUT', headers: tenant.auth, body: 'y' });
    await waitFor(() => updates.length >= 1, 5_000);
    expect(updates).toEqual(['drive:///iso/mine.md']);
    await sub.close();
    await expect(client.listen({ resourceSubscriptions: ['file:///etc/passwd'] })).rejects.toThrow(/drive:\/\/\//);
    await client.close();
  });
});

describe('subscription limits', () => {
  it('shares the change feed’s per-credential stream cap: the stream past it is 429', async () => {
    const capped = await createTenant(api.ctx);
    const { client } = await modernClient(capped.apiKey, [api.url]);
    const cap = api.ctx.config.feed.streamsPerCredential;
    const open = [];
    for (let i = 0; i < cap; i++) open.push(await client.listen({ resourceSubscriptions: [`drive:///s${i}/`] }));
    await expect(client.listen({ resourceSubscriptions: ['drive:///over/'] })).rejects.toThrow(/429|at most/);
    await open[0]!.close();
    // A slot freed by a closed stream is taken again.
    const again = await retry(() => client.listen({ resourceSubscriptions: ['drive:///again/'] }));
    for (const sub of [...open.slice(1), again]) await sub.close();
    await client.close();
  });
});

/** Retries `fn` for up to 3 s (a closed stream's slot is released when its connection closes). */
async function retry<T>(fn: () => Promise<T>): Promise<T> {
  const until = Date.now() + 3_000;
  for (;;) {
    try {
      return await fn();
    } catch (err) {
      if (Date.now() > until) throw err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

async function waitFor(done: () => boolean, budgetMs: number) {
  const until = Date.now() + budgetMs;
  while (!done()) {
    if (Date.now() > until) throw new Error(`not done within ${budgetMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
