import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { createTenant } from '../helpers/tenant.js';
import { mcpClient, type McpSession } from './helpers.js';

/** MCP runs, undo and as_of (issue 38): an agent sets its run id once in its connection's headers. */
let api: TestApi;
let s: McpSession;
let other: McpSession;

beforeAll(async () => {
  api = await startTestApi();
  const key = (await createTenant(api.ctx)).apiKey;
  s = await mcpClient(api, key, { 'x-drive-run-id': 'task-42' });
  other = await mcpClient(api, key, { 'x-drive-run-id': 'task-43' });
});
afterAll(async () => {
  await s?.close();
  await other?.close();
  await api?.close();
});

describe('MCP runs, undo and as_of', () => {
  it('files every change of the connection under its run; undo previews, then reverts it; as_of reads the past', async () => {
    await other.ok('upload', { path: 'keep.md', content: 'kept' });
    await other.ok('upload', { path: 'doc.md', content: 'original' });
    const { seq: before } = (await other.ok<{ items: { seq: number }[] }>('activity', {})).items[0];
    await s.ok('upload', { path: 'doc.md', content: 'overwritten by the task' });
    await s.ok('upload', { path: 'scratch.md', content: 'made by the task' });
    await s.ok('delete', { ref: 'keep.md' });

    const runs = await s.ok<{ items: { run_id: string; changes: Record<string, number> }[] }>('runs', {});
    expect(runs.items.map((r) => r.run_id)).toEqual(['task-42', 'task-43']);
    expect(runs.items[0].changes).toMatchObject({ created: 1, updated: 1, deleted: 1 });
    const one = await s.ok<{ changed: { path: string }[] }>('runs', { run_id: 'task-42' });
    expect(one.changed.map((c) => c.path)).toEqual(['doc.md', 'scratch.md', 'keep.md']);

    const then = await s.ok<{ items: { path: string }[] }>('list', { as_of: before });
    expect(then.items.map((i) => i.path)).toEqual(['doc.md', 'keep.md']);
    expect((await s.ok<{ content: string }>('read', { ref: 'doc.md', as_of: before })).content).toBe('original');
    // keep.md is in the trash now: as_of reads it as REST does (issue 55).
    expect((await s.ok<{ content: string }>('read', { ref: 'keep.md', as_of: before })).content).toBe('kept');

    const preview = await s.ok<{ dry_run: boolean; changes: { outcome: string }[] }>('undo', {
      run_id: 'task-42',
      dry_run: true,
    });
    expect(preview.dry_run).toBe(true);
    expect(preview.changes.map((c) => c.outcome)).toEqual(['reverted', 'reverted', 'reverted']);
    // The preview's text names each change, worded as what it would do.
    const previewText = (preview as unknown as { _text: string })._text;
    expect(previewText).toContain('would revert 3');
    for (const p of ['doc.md', 'scratch.md', 'keep.md']) expect(previewText).toMatch(new RegExp(`^would .* ${p}`, 'm'));
    expect(previewText).not.toMatch(/^reverted/m);
    expect((await s.ok<{ content: string }>('read', { ref: 'doc.md' })).content).toBe('overwritten by the task');

    const done = await s.ok<{ revert_run_id: string; _text: string }>('undo', { run_id: 'task-42' });
    expect(done._text).toContain(`undo(run_id="${done.revert_run_id}")`);
    expect((await s.ok<{ content: string }>('read', { ref: 'doc.md' })).content).toBe('original');
    expect((await s.ok<{ content: string }>('read', { ref: 'keep.md' })).content).toBe('kept');
    expect((await s.fail('read', { ref: 'scratch.md' })).code).toBe('ARTIFACT_NOT_FOUND');
    expect((await s.fail('undo', { run_id: 'no-such-run' })).code).toBe('RUN_NOT_FOUND');
  });

  it('a dry run names the conflicting file and why; as_of past the newest seq is AS_OF_OUT_OF_RANGE', async () => {
    // A drive of its own: the first test's preview spaces this drive's next one (HISTORY_PREVIEW_SPACING_MS).
    const fresh = (await createTenant(api.ctx)).apiKey;
    const mine = await mcpClient(api, fresh, { 'x-drive-run-id': 'task-50' });
    const theirs = await mcpClient(api, fresh, { 'x-drive-run-id': 'task-51' });
    try {
      await mine.ok('upload', { path: 'c/plan.md', content: 'mine' });
      await mine.ok('upload', { path: 'c/notes.md', content: 'mine too' });
      await theirs.ok('upload', { path: 'c/plan.md', content: 'theirs, later' });
      const preview = await mine.ok<{ _text: string; changes: { outcome: string; reason?: string }[] }>('undo', {
        run_id: 'task-50',
        dry_run: true,
      });
      expect(preview.changes.map((c) => [c.outcome, c.reason ?? null])).toEqual([
        ['conflict', 'changed_by_another_run'],
        ['reverted', null],
      ]);
      expect(preview._text).toContain('conflict c/plan.md: changed_by_another_run');
      expect(preview._text).toMatch(/^would trash c\/notes\.md/m);
      expect(preview._text).toContain('force=true');
      const { seq } = (await mine.ok<{ items: { seq: number }[] }>('activity', {})).items[0];
      expect((await mine.fail('list', { as_of: seq + 10 })).code).toBe('AS_OF_OUT_OF_RANGE');
      expect((await mine.fail('read', { ref: 'c/plan.md', as_of: seq + 10 })).code).toBe('AS_OF_OUT_OF_RANGE');
    } finally {
      await mine.close();
      await theirs.close();
    }
  });
});
