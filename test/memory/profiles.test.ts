import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { createTenant } from '../helpers/tenant.js';

/**
 * MCP profiles (`/mcp?tools=…`): a profile's tools/list offers only its tools, the default leaves the memory tool out,
 * an unknown profile is refused with the known names. Each list's size is printed for the closing note.
 */
let api: TestApi;
let tenant: Awaited<ReturnType<typeof createTenant>>;
beforeAll(async () => {
  api = await startTestApi();
  tenant = await createTenant(api.ctx);
}, 120_000);
afterAll(async () => api?.close());

const listTools = (query: string) =>
  fetch(`${api.url}/mcp${query}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${tenant.apiKey}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });

async function namesOf(query: string) {
  const res = await listTools(query);
  expect(res.status).toBe(200);
  const body = (await res.json()) as { result: { tools: { name: string }[] } };
  console.log(`tools/list${query || ' (default)'}: ${JSON.stringify(body.result).length} characters`);
  return body.result.tools.map((t) => t.name);
}

describe('MCP profiles', () => {
  it('lists only the profile tools; the default and `all` leave memory out', async () => {
    expect(await namesOf('?tools=memory')).toEqual(['memory']);
    expect((await namesOf('?tools=patch')).sort()).toEqual(['apply_patch', 'read']);
    const code = await namesOf('?tools=code');
    expect(code).toContain('memory');
    expect(code).toContain('edit');
    expect(code).not.toContain('share');
    const all = await namesOf('');
    expect(all).not.toContain('memory');
    expect(await namesOf('?tools=all')).toEqual(all);
  });

  it('refuses an unknown profile naming the known ones', async () => {
    const res = await listTools('?tools=everything');
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { code: number; message: string } };
    expect(body.error.code).toBe(-32602);
    expect(body.error.message).toContain('known profiles: all, memory, patch, code');
  });
});

describe('memory writes are drive writes', () => {
  it('each changing command is one event in the feed, attributed to the request run', async () => {
    const post = (cmd: object) =>
      fetch(`${api.url}/v0/memory`, {
        method: 'POST',
        headers: { ...tenant.auth, 'content-type': 'application/json' },
        body: JSON.stringify(cmd),
      }).then((r) => r.json() as Promise<{ result: string; is_error: boolean }>);
    await post({ command: 'create', path: '/memories/Zoë notes.md', file_text: 'a\n' });
    await post({ command: 'str_replace', path: '/memories/Zoë notes.md', old_str: 'a', new_str: 'b' });
    const listing = await post({ command: 'view', path: '/memories' });
    expect(listing.result).toContain('/memories/Zoë notes.md');
    const meta = await fetch(`${api.url}/v0/artifacts/memories/Zoe-notes.md/meta`, { headers: tenant.auth });
    expect(meta.status).toBe(200);
    expect(((await meta.json()) as { version_number: number }).version_number).toBe(2);
    const events = await fetch(`${api.url}/v0/events?limit=50`, { headers: tenant.auth });
    type Event = { action: string; metadata: { path?: string }; run_id: string | null };
    const items = ((await events.json()) as { items: Event[] }).items;
    const writes = items.filter((e) => e.metadata?.path === 'memories/Zoe-notes.md' && e.action.startsWith('artifact'));
    expect(writes.length, JSON.stringify(items)).toBe(2);
    for (const e of writes) expect(e.run_id).toBeTruthy();
  });
});
