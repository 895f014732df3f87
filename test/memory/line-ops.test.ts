import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { createTenant } from '../helpers/tenant.js';
import { mcpClient, type McpSession } from '../mcp/helpers.js';

/** Line operations at the MCP door (issue 57): edit inserts at a line, read numbers lines as the memory tool does. */
let api: TestApi;
let s: McpSession;
beforeAll(async () => {
  api = await startTestApi();
  const tenant = await createTenant(api.ctx);
  s = await mcpClient(api, tenant.apiKey);
}, 120_000);
afterAll(async () => {
  await s?.close();
  await api?.close();
});

describe('line operations', () => {
  it('edit inserts after a line (0: top) as one version, and refuses a line past the end', async () => {
    await s.ok('upload', { path: 'notes/l.md', content: 'a\nb\n', encoding: 'text' });
    const top = await s.ok<{ artifact: { version_number: number } }>('edit', {
      ref: 'notes/l.md',
      insert_line: 0,
      insert_text: 'first\n',
    });
    expect(top.artifact.version_number).toBe(2);
    await s.ok('edit', {
      ref: 'notes/l.md',
      edits: [{ old_text: 'b', new_text: 'B' }],
      insert_line: 3,
      insert_text: 'end',
    });
    const read = await s.ok<{ content: string }>('read', { ref: 'notes/l.md' });
    expect(read.content).toBe('first\na\nB\nend\n');
    const err = await s.fail('edit', { ref: 'notes/l.md', insert_line: 9, insert_text: 'x' });
    expect(err.code).toBe('INVALID_ARGUMENT');
    expect(err.message).toContain('[0, 4]');
  });

  it('read numbers lines 6 wide with a tab, from line_start', async () => {
    await s.ok('upload', { path: 'notes/n.md', content: 'one\ntwo\nthree', encoding: 'text' });
    const r = await s.ok('read', { ref: 'notes/n.md', line_start: 2, line_count: 2, numbered: true });
    expect(r._text.split('\n').slice(1).join('\n')).toBe('     2\ttwo\n     3\tthree');
  });
});
