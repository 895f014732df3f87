import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { createTenant } from '../helpers/tenant.js';
import { mcpClient } from './helpers.js';

/** MCP writes are charged to the same hourly budget as REST writes; reads are not limited. */
let api: TestApi;
beforeAll(async () => {
  api = await startTestApi({ WRITE_BUDGET_PER_HOUR: '3' });
});
afterAll(async () => {
  await api?.close();
});

describe('MCP budgets', () => {
  it('charges each mutating tool one write, shared with REST, and answers RATE_LIMITED when spent', async () => {
    const t = await createTenant(api.ctx);
    const s = await mcpClient(api, t.apiKey);
    await s.ok('mkdir', { path: 'one' });
    // A failed write still counts, as on REST.
    expect((await s.fail('upload', { path: '_wiki/x.md', content: 'x' })).code).toBe('WIKI_RESERVED');
    const rest = await fetch(`${api.url}/v0/artifacts/rest.txt`, {
      method: 'PUT',
      headers: { ...t.auth, 'content-type': 'text/plain' },
      body: 'r',
    });
    expect(rest.status).toBe(200);
    const spent = await s.fail('upload', { path: 'two.txt', content: 'x' });
    expect(spent).toMatchObject({ code: 'RATE_LIMITED', status: 429 });
    expect(spent.retry_after).toBeGreaterThan(0);
    expect(await s.ok('read', { ref: 'rest.txt' })).toMatchObject({ content: 'r' });
    const me = await fetch(`${api.url}/v0/drives/me/usage`, { headers: t.auth });
    expect(me.headers.get('x-ratelimit-remaining')).toBe('0');
    await s.close();
  });
});
