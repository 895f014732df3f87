import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Drive, DriveError } from '../../packages/client/src/index.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { createTenant } from '../helpers/tenant.js';

/** The SDK's runs, undo, snapshot, rewind and asOf against the test stack (issue 55). */
let api: TestApi;
let apiKey: string;
const drive = () => new Drive({ baseUrl: api.url, credential: { apiKey } });

beforeAll(async () => {
  api = await startTestApi();
  apiKey = (await createTenant(api.ctx)).apiKey;
});
afterAll(async () => api?.close());

describe('Drive: runs, undo, snapshot, rewind, asOf', () => {
  it('each Drive is its own run; undo() previews then reverts its own changes only', async () => {
    const a = drive();
    const b = drive();
    expect(a.runId).toMatch(/^sdk-/);
    expect(b.runId).not.toBe(a.runId);
    await a.put('a/one.md', 'one');
    await a.put('a/two.md', 'two');
    await b.put('b/other.md', 'other');

    const runs = await a.runs();
    expect(runs.items.map((r) => [r.run_id, r.changes.created, r.credential_name])).toEqual([
      [b.runId, 1, 'test'],
      [a.runId, 2, 'test'],
    ]);

    const preview = await a.undo(undefined, { dryRun: true });
    expect(preview).toMatchObject({ dry_run: true, revert_run_id: null, run_id: a.runId });
    expect(preview.changes.map((c) => [c.path, c.steps, c.outcome])).toEqual([
      ['a/one.md', ['trash'], 'reverted'],
      ['a/two.md', ['trash'], 'reverted'],
    ]);
    expect((await a.list()).items).toHaveLength(3);

    const done = await a.undo();
    expect(done.revert_run_id).toMatch(/^revert_/);
    expect((await a.list()).items.map((i) => i.path)).toEqual(['b/other.md']);
    expect(new Drive({ baseUrl: api.url, credential: { apiKey }, runId: null }).runId).toBeUndefined();
  });

  it('snapshot(), text/list asOf a snapshot (trashed since too), rewind() with a dry run first', async () => {
    const d = new Drive({ baseUrl: api.url, credential: { apiKey: (await createTenant(api.ctx)).apiKey } });
    await d.put('r/report.md', 'draft 1');
    const snap = await d.snapshot('draft 1');
    expect((await d.snapshots()).map((s) => s.snapshot_id)).toEqual([snap.snapshot_id]);
    await d.put('r/report.md', 'draft 2');
    await d.put('r/new.md', 'new');
    await d.delete('r/report.md');

    expect(await d.text('r/report.md', { asOf: snap.snapshot_id })).toBe('draft 1');
    expect(await d.text('r/report.md', { asOf: snap.seq })).toBe('draft 1');
    expect((await d.list({ asOf: snap.snapshot_id })).items.map((i) => i.path)).toEqual(['r/report.md']);
    const past = await d.list({ asOf: snap.seq + 100 }).catch((e: unknown) => e);
    expect(past).toBeInstanceOf(DriveError);
    expect(past).toMatchObject({ status: 404, code: 'AS_OF_OUT_OF_RANGE' });

    const preview = await d.rewind(snap.snapshot_id, { prefix: 'r/', dryRun: true });
    expect(preview.dry_run).toBe(true);
    expect(preview.changes.map((c) => c.target_path ?? c.path).sort()).toEqual(['r/new.md', 'r/report.md']);
    expect((await d.list()).items.map((i) => i.path)).toEqual(['r/new.md']);

    const done = await d.rewind(snap.snapshot_id);
    expect(done.revert_run_id).toMatch(/^rewind_/);
    expect(await d.text('r/report.md')).toBe('draft 1');
    expect((await d.list()).items.map((i) => i.path)).toEqual(['r/report.md']);
  });
});
