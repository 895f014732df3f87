import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { createTenant } from '../helpers/tenant.js';
import { mcpClient, type McpSession } from './helpers.js';

/** Issue 39, MCP details: a leading `/` on a path is stripped and said; the wiki tools say the wiki is off. */
let api: TestApi;
let s: McpSession;

beforeAll(async () => {
  api = await startTestApi();
  s = await mcpClient(api, (await createTenant(api.ctx)).apiKey);
});
afterAll(async () => {
  await s?.close();
  await api?.close();
});

describe('MCP path arguments and the wiki switch', () => {
  it('a leading / is stripped from path arguments, and the answer says so', async () => {
    const up = await s.ok<{ path: string; path_note: string }>('upload', { path: '/reports/q1.md', content: 'q1' });
    expect(up.path).toBe('reports/q1.md');
    expect(up.path_note).toContain('"/reports/q1.md" → "reports/q1.md"');
    expect(up._text).toContain('no leading /');
    const found = await s.ok<{ kind: string; path_note: string }>('lookup', { ref: '/reports/q1.md' });
    expect(found.kind).toBe('artifact');
    const plain = await s.ok<Record<string, unknown>>('lookup', { ref: 'reports/q1.md' });
    expect(plain.path_note).toBeUndefined();
  });

  it('with no language model, the wiki tools answer WIKI_DISABLED', async () => {
    expect(api.ctx.config.llm).toBeUndefined();
    expect((await s.fail('wiki_search', { q: 'anything' })).code).toBe('WIKI_DISABLED');
    expect((await s.fail('wiki_ls', {})).code).toBe('WIKI_DISABLED');
    expect((await s.fail('wiki_grep', { pattern: 'x' })).code).toBe('WIKI_DISABLED');
  });
});
