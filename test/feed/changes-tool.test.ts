import { afterAll, describe, expect, it } from 'vitest';
import type { TestApi } from '../helpers/api.js';
import { useTestApi, type DriveClient } from '../artifacts/client.js';
import { mcpClient, type McpSession } from '../mcp/helpers.js';

let api: TestApi;
let d: DriveClient;
let agent: McpSession;
useTestApi({}, (a, dc) => {
  api = a;
  d = dc;
});
afterAll(async () => agent?.close());

interface Changes {
  items: { seq: number; action: string; metadata: { path?: string } }[];
  next_since: number;
  more: boolean;
}

describe('MCP changes', () => {
  it('returns what changed after since, oldest first, and the seq to pass next', async () => {
    agent = await mcpClient(api, d.apiKey);
    for (const p of ['n/a.md', 'n/b.md', 'other/c.md']) await d.put(p, 'x');
    const latest = await agent.ok<Changes>('changes', { limit: 2 });
    expect(latest.items.map((e) => e.seq)).toEqual([2, 3]);
    expect(latest).toMatchObject({ next_since: 3, more: false });

    const first = await agent.ok<Changes>('changes', { since: 0, limit: 2 });
    expect(first.items.map((e) => e.seq)).toEqual([1, 2]);
    expect(first).toMatchObject({ next_since: 2, more: true });
    const rest = await agent.ok<Changes>('changes', { since: first.next_since, limit: 2 });
    expect(rest).toMatchObject({ next_since: 3, more: false });
    expect(rest.items.map((e) => e.seq)).toEqual([3]);

    // Another agent writes; the prefix filter skips what it does not match, and next_since still moves past it.
    await d.put('other/d.md', 'x');
    await d.put('n/e.md', 'x');
    const mine = await agent.ok<Changes>('changes', { since: rest.next_since, prefix: 'n/' });
    expect(mine.items.map((e) => [e.seq, e.metadata.path])).toEqual([[5, 'n/e.md']]);
    expect(mine.next_since).toBe(5);
    expect(mine._text).toContain('next_since=5');
    expect((await agent.ok<Changes>('changes', { since: 5 })).items).toEqual([]);
  });

  it('is read-only and refuses a negative since', async () => {
    const { tools } = await agent.client.listTools();
    const changes = tools.find((t) => t.name === 'changes')!;
    expect(changes.annotations).toMatchObject({ readOnlyHint: true });
    expect((await agent.fail('changes', { since: -1 })).code).toBe('VALIDATION_ERROR');
  });
});
