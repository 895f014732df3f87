import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { mcpClient, type McpSession } from '../mcp/helpers.js';
import { driveClient, type DriveClient } from './client.js';

/** Three-way merge on write (issue 56, docs/decisions/merge.md): REST PUT and MCP upload/edit with merge. */
let api: TestApi;
let d: DriveClient;
let mcp: McpSession;

beforeAll(async () => {
  api = await startTestApi({});
  d = await driveClient(api);
  mcp = await mcpClient(api, d.apiKey);
});
afterAll(async () => {
  await mcp?.close();
  await api?.close();
});

const lines = (n: number, tag = 'line') => Array.from({ length: n }, (_, i) => `${tag} ${i + 1}\n`).join('');
const text = { 'content-type': 'text/plain' };
const merge = (base: number) => ({ 'if-match': String(base), 'x-drive-merge': 'three-way' });
const versions = async (artId: string) =>
  ((await d.get(`/v0/artifacts/${artId}/versions`)).json.items as { version_number: number }[]).length;
const download = async (path: string) => {
  const artId = (await d.get(`/v0/artifacts/${path}/meta`)).json.art_id as string;
  return (await d.get(`/v0/artifacts/${artId}/download`)).bytes.toString('utf8');
};

describe('three-way merge on PUT', () => {
  it('keeps both agents’ edits to different lines of the same base: 200 with merged', async () => {
    const base = lines(10);
    const v1 = (await d.put('m/a.txt', base, text)).json;
    const agentA = base.replace('line 2\n', 'line 2 by A\n');
    const agentB = base.replace('line 8\n', 'line 8 by B\n');
    expect((await d.put('m/a.txt', agentA, { ...text, ...merge(1) })).json.version_number).toBe(2);
    const r = await d.put('m/a.txt', agentB, { ...text, ...merge(1) });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ version_number: 3, merged: { base: 1, theirs: 2 } });
    const merged = await download('m/a.txt');
    expect(merged).toBe(base.replace('line 2\n', 'line 2 by A\n').replace('line 8\n', 'line 8 by B\n'));
    expect(await versions(v1.art_id)).toBe(3);
  });

  it('an If-Match equal to the current version is a plain write (no merged)', async () => {
    await d.put('m/plain.txt', 'one\n', text);
    const r = await d.put('m/plain.txt', 'two\n', { ...text, ...merge(1) });
    expect(r.status).toBe(200);
    expect(r.json.version_number).toBe(2);
    expect(r.json.merged).toBeUndefined();
  });

  it('overlapping edits: 409 MERGE_CONFLICT with the hunks; no version, no event', async () => {
    const base = lines(6);
    const v1 = (await d.put('m/c.txt', base, text)).json;
    await d.put('m/c.txt', base.replace('line 3\n', 'line 3 theirs\n'), { ...text, ...merge(1) });
    const seqBefore = Math.max(...(await d.events('?limit=200')).map((e) => Number(e.seq)));
    const r = await d.put('m/c.txt', base.replace('line 3\n', 'line 3 ours\nextra\n'), { ...text, ...merge(1) });
    expect(r.status).toBe(409);
    expect(r.code).toBe('MERGE_CONFLICT');
    expect(r.json.detail.error).toMatchObject({
      base: 1,
      theirs: 2,
      conflicts: [
        {
          base: { start: 3, lines: ['line 3'] },
          ours: { start: 3, lines: ['line 3 ours', 'extra'] },
          theirs: { start: 3, lines: ['line 3 theirs'] },
        },
      ],
    });
    expect(await versions(v1.art_id)).toBe(2);
    const after = await d.events('?limit=200');
    expect(after.filter((e) => Number(e.seq) > seqBefore)).toEqual([]);
    expect(await download('m/c.txt')).toBe(base.replace('line 3\n', 'line 3 theirs\n'));
  });

  it('the same change on both sides is no conflict', async () => {
    const base = lines(4);
    await d.put('m/same.txt', base, text);
    const changed = base.replace('line 2\n', 'line two\n');
    await d.put('m/same.txt', changed, text);
    const r = await d.put('m/same.txt', changed, { ...text, ...merge(1) });
    expect(r.status).toBe(200);
    expect(await download('m/same.txt')).toBe(changed);
  });

  it('binary content never merges: 412 as without merge', async () => {
    await d.put('m/b.bin', new Uint8Array([0, 1, 2]));
    await d.put('m/b.bin', new Uint8Array([0, 1, 3]));
    const r = await d.put('m/b.bin', new Uint8Array([9, 1, 2]), merge(1));
    expect(r.status).toBe(412);
    expect(r.code).toBe('PRECONDITION_FAILED');
  });

  it('merge needs If-Match and takes only three-way; over the bounds is 413 MERGE_TOO_LARGE', async () => {
    await d.put('m/big.txt', lines(60_001), text);
    await d.put('m/big.txt', lines(60_001).replace('line 5\n', 'five\n'), text);
    const big = await d.put('m/big.txt', lines(60_001).replace('line 9\n', 'nine\n'), { ...text, ...merge(1) });
    expect(big.status).toBe(413);
    expect(big.code).toBe('MERGE_TOO_LARGE');
    expect((await d.put('m/big.txt', 'x', { ...text, 'x-drive-merge': 'three-way' })).code).toBe('INVALID_ARGUMENT');
    expect((await d.put('m/big.txt', 'x', { ...text, ...merge(1), 'x-drive-merge': 'two-way' })).code).toBe(
      'INVALID_ARGUMENT',
    );
    const many = lines(3000);
    await d.put('m/many.txt', many, text);
    await d.put('m/many.txt', many.replace('line 1\n', 'first\n'), text);
    const rewritten = await d.put('m/many.txt', lines(3000, 'other'), { ...text, ...merge(1) });
    expect(rewritten.code).toBe('MERGE_TOO_LARGE');
  });
});

describe('three-way merge over MCP', () => {
  it('upload with merge: true merges; edit with merge applies the edit to if_match, then merges', async () => {
    const base = lines(8);
    await mcp.ok('upload', { path: 'mm/doc.md', content: base });
    await mcp.ok('upload', { path: 'mm/doc.md', content: base.replace('line 1\n', 'line 1 A\n') });
    const up = await mcp.ok<{ merged: unknown; version_number: number }>('upload', {
      path: 'mm/doc.md',
      content: base.replace('line 8\n', 'line 8 B\n'),
      if_match: 1,
      merge: true,
    });
    expect(up).toMatchObject({ version_number: 3, merged: { base: 1, theirs: 2 } });
    const edited = await mcp.ok<{ artifact: { merged: unknown; version_number: number }; base_version: number }>(
      'edit',
      { ref: 'mm/doc.md', edits: [{ old_text: 'line 5\n', new_text: 'line 5 C\n' }], if_match: 1, merge: true },
    );
    expect(edited.base_version).toBe(1);
    expect(edited.artifact).toMatchObject({ version_number: 4, merged: { base: 1, theirs: 3 } });
    expect(await download('mm/doc.md')).toBe(
      base.replace('line 1\n', 'line 1 A\n').replace('line 5\n', 'line 5 C\n').replace('line 8\n', 'line 8 B\n'),
    );
    const clash = await mcp.fail('edit', {
      ref: 'mm/doc.md',
      edits: [{ old_text: 'line 1\n', new_text: 'line 1 D\n' }],
      if_match: 1,
      merge: true,
    });
    expect(clash.code).toBe('MERGE_CONFLICT');
    expect(await download('mm/doc.md')).not.toContain('line 1 D');
  });
});
