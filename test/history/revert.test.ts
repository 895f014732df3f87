import { describe, expect, it } from 'vitest';
import type { TestApi } from '../helpers/api.js';
import { driveClient, useTestApi, type DriveClient } from '../artifacts/client.js';
import { driveState, headSeq, runHeader } from './drive-state.js';

let api: TestApi;
useTestApi({}, (a) => {
  api = a;
});

/** A drive with a few files written under run `base`. */
async function seeded(): Promise<DriveClient> {
  const d = await driveClient(api);
  const h = runHeader('base');
  for (const [p, body] of [
    ['a.md', 'alpha'],
    ['b.md', 'bravo'],
    ['c.md', 'charlie'],
    ['docs/d.md', 'delta'],
  ])
    expect((await d.put(p, body, h)).status).toBe(200);
  return d;
}

/** One run that creates, updates, deletes, moves, copies and makes a folder. */
async function agentRun(d: DriveClient, runId: string) {
  const h = runHeader(runId);
  const byPath = async (p: string) => (await d.call('GET', `/v0/artifacts/${p}/meta`)).json.art_id as string;
  expect((await d.put('new.md', 'created by the run', h)).status).toBe(200);
  expect((await d.put('a.md', 'alpha, rewritten', { ...h, 'x-drive-labels': 'edited' })).status).toBe(200);
  expect((await d.call('DELETE', '/v0/artifacts/b.md', { headers: h })).status).toBe(200);
  const c = await byPath('c.md');
  expect((await d.call('PATCH', `/v0/artifacts/${c}`, { json: { path: 'moved/c.md' }, headers: h })).status).toBe(200);
  const a = await byPath('a.md');
  expect((await d.call('POST', `/v0/artifacts/${a}/copy`, { json: { path: 'copy-of-a.md' }, headers: h })).status).toBe(
    200,
  );
  expect((await d.call('POST', '/v0/folders/made-by-run', { headers: h })).status).toBe(201);
}

describe('runs: every change names its run', () => {
  it('EventOut carries run_id, events filter by it, and /v0/runs groups the changes', async () => {
    const d = await seeded();
    await agentRun(d, 'agent-1');
    const events = await d.events('?run_id=agent-1&limit=50');
    expect(events.length).toBe(6);
    expect(events.every((e) => e.run_id === 'agent-1')).toBe(true);
    const runs = (await d.get('/v0/runs')).json.items;
    expect(runs.map((r: { run_id: string }) => r.run_id)).toEqual(['agent-1', 'base']);
    expect(runs[0]).toMatchObject({
      credential_kind: 'api_key',
      changes: { created: 3, updated: 1, deleted: 1, moved: 1, restored: 0, other: 0 },
    });
    const one = (await d.get('/v0/runs/agent-1')).json;
    expect(one.changed.map((c: { action: string }) => c.action)).toEqual(events.map((e) => e.action).reverse());
    expect((await d.get('/v0/runs/nope')).code).toBe('RUN_NOT_FOUND');
    expect((await d.put('x.md', 'x', runHeader('bad id!'))).code).toBe('INVALID_RUN_ID');
  });

  it('without the header, one credential writes under one default run', async () => {
    const d = await driveClient(api);
    await d.put('one.md', '1');
    await d.put('two.md', '2');
    const ids = new Set((await d.events()).map((e) => e.run_id));
    expect(ids.size).toBe(1);
    expect([...ids][0]).toMatch(/^run_/);
  });
});

describe('revert: undo exactly one run', () => {
  it('puts every path and byte back as of the seq before the run, and a revert of the revert brings it back', async () => {
    const d = await seeded();
    await agentRun(d, 'agent-1');
    const run = (await d.get('/v0/runs/agent-1')).json;
    const before = await driveState(d, run.first_seq - 1);
    const after = await driveState(d);
    expect(after).not.toEqual(before);
    expect(await driveState(d, run.last_seq)).toEqual(after);

    const preview = await d.call('POST', '/v0/runs/agent-1/revert', { json: { dry_run: true } });
    expect(preview.status).toBe(200);
    expect(preview.json.revert_run_id).toBeNull();
    expect(preview.json.changes.filter((c: { outcome: string }) => c.outcome === 'reverted').length).toBe(6);
    expect(await driveState(d)).toEqual(after);

    const done = await d.call('POST', '/v0/runs/agent-1/revert', { json: {} });
    expect(done.status).toBe(200);
    expect(done.json.changes.map((c: { outcome: string }) => c.outcome)).toEqual(
      preview.json.changes.map((c: { outcome: string }) => c.outcome),
    );
    expect(await driveState(d)).toEqual(before);
    const labels = (await d.get('/v0/artifacts/a.md/meta')).json.labels;
    expect(labels).toEqual([]);
    const folder = await d.get('/v0/folders/made-by-run');
    expect(folder.status).toBe(404);

    const again = await d.call('POST', `/v0/runs/${done.json.revert_run_id}/revert`, { json: {} });
    expect(again.status).toBe(200);
    expect(await driveState(d)).toEqual(after);
    expect((await d.get('/v0/folders/made-by-run')).status).toBe(200);
  });

  it('a later change by another run is a conflict: 409 changes nothing, force skips it, dry_run changes nothing', async () => {
    const d = await seeded();
    await agentRun(d, 'agent-2');
    expect((await d.put('new.md', 'someone else edited it', runHeader('person'))).status).toBe(200);
    const head = await headSeq(d);
    const state = await driveState(d);

    const refused = await d.call('POST', '/v0/runs/agent-2/revert', { json: {} });
    expect(refused.status).toBe(409);
    expect(refused.code).toBe('RUN_CONFLICT');
    expect(refused.json.detail.error.conflicts.map((c: { path: string }) => c.path)).toEqual(['new.md']);
    expect(await headSeq(d)).toBe(head);
    expect(await driveState(d)).toEqual(state);

    const dry = await d.call('POST', '/v0/runs/agent-2/revert', { json: { dry_run: true, force: true } });
    expect(dry.status).toBe(200);
    expect(await headSeq(d)).toBe(head);

    const forced = await d.call('POST', '/v0/runs/agent-2/revert', { json: { force: true } });
    expect(forced.status).toBe(200);
    const conflict = forced.json.changes.find((c: { path: string }) => c.path === 'new.md');
    expect(conflict).toMatchObject({ outcome: 'conflict', reason: 'changed_by_another_run' });
    const now = await driveState(d);
    expect(now['new.md']).toBe(state['new.md']);
    expect(Object.keys(now).sort()).toEqual(['a.md', 'b.md', 'c.md', 'docs/d.md', 'new.md']);
  });

  it('interleaved runs: a file goes back to what it was right before this run changed it', async () => {
    const d = await seeded();
    await d.put('a.md', 'agent first', runHeader('slow-agent'));
    await d.put('b.md', 'a person edits b', runHeader('person'));
    await d.put('b.md', 'the agent overwrites b', runHeader('slow-agent'));
    const r = await d.call('POST', '/v0/runs/slow-agent/revert', { json: {} });
    expect(r.status).toBe(200);
    expect((await d.get('/v0/artifacts/a.md/meta')).json).toMatchObject({ size_bytes: 'alpha'.length });
    const b = (await d.get('/v0/artifacts/b.md/meta')).json;
    expect((await d.get(`/v0/artifacts/${b.art_id}/download`)).bytes.toString()).toBe('a person edits b');
  });

  it('two concurrent writers with different run ids: reverting one leaves the other alone', async () => {
    const d = await seeded();
    await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        d.put(i % 2 ? `left/${i}.md` : `right/${i}.md`, `v${i}`, runHeader(i % 2 ? 'left' : 'right')),
      ),
    );
    const rightBefore = Object.entries(await driveState(d)).filter(([p]) => p.startsWith('right/'));
    const r = await d.call('POST', '/v0/runs/left/revert', { json: {} });
    expect(r.status).toBe(200);
    const now = await driveState(d);
    expect(Object.keys(now).filter((p) => p.startsWith('left/'))).toEqual([]);
    expect(Object.entries(now).filter(([p]) => p.startsWith('right/'))).toEqual(rightBefore);
  });
});
