import { describe, expect, it } from 'vitest';
import { purgeArtifacts } from '../../src/files/purge.js';
import type { TestApi } from '../helpers/api.js';
import { driveClient, sqlOn, useTestApi } from '../artifacts/client.js';
import { driveState, headSeq, runHeader } from './drive-state.js';

let api: TestApi;
useTestApi({}, (a) => {
  api = a;
});

const expireTrash = (artId: string) =>
  sqlOn(api, `update artifacts set purge_at = now() - interval '1 second' where id = ?`, [artId]);

describe('snapshots', () => {
  it('a snapshot is a named seq; it pins what it references against the trash purge until it is deleted', async () => {
    const d = await driveClient(api);
    const doc = (await d.put('keep/doc.md', 'pinned bytes')).json;
    const made = await d.call('POST', '/v0/snapshots', { json: { label: 'before cleanup' } });
    expect(made.status).toBe(201);
    expect(made.json).toMatchObject({ label: 'before cleanup', seq: await headSeq(d) });
    expect(made.json.snapshot_id).toMatch(/^snp_/);
    expect((await d.get('/v0/snapshots')).json.items.map((s: { snapshot_id: string }) => s.snapshot_id)).toEqual([
      made.json.snapshot_id,
    ]);

    expect((await d.call('DELETE', '/v0/artifacts/keep/doc.md')).status).toBe(200);
    await expireTrash(doc.art_id);
    await purgeArtifacts(api.ctx);
    // Still there: the drive as of the snapshot reads it, bytes and all.
    expect(Object.keys(await driveState(d, made.json.seq))).toEqual(['keep/doc.md']);
    const then = await d.get(`/v0/artifacts/${doc.art_id}/download?as_of=${made.json.seq}`);
    expect(then.bytes.toString()).toBe('pinned bytes');
    // Its bytes still count in the drive's storage, and the usage answer says a snapshot holds them.
    const usage = (await d.get('/v0/drives/me/usage')).json.storage;
    expect(usage.pinned_by_snapshots).toBe('pinned bytes'.length);
    expect(usage.used).toBeGreaterThanOrEqual(usage.pinned_by_snapshots);

    expect((await d.call('DELETE', `/v0/snapshots/${made.json.snapshot_id}`)).status).toBe(200);
    expect((await d.call('DELETE', `/v0/snapshots/${made.json.snapshot_id}`)).code).toBe('SNAPSHOT_NOT_FOUND');
    await purgeArtifacts(api.ctx);
    expect((await d.get('/v0/drives/me/usage')).json.storage).toMatchObject({ used: 0, pinned_by_snapshots: 0 });
    const gone = await d.get(`/v0/artifacts?as_of=${made.json.seq}`);
    expect(gone.status).toBe(410);
    expect(gone.code).toBe('HISTORY_PURGED');
    expect(gone.json.detail.error.purged).toEqual(['keep/doc.md']);
  });

  it('a run whose artifact retention no longer keeps answers 410 HISTORY_PURGED on revert', async () => {
    const d = await driveClient(api);
    const doc = (await d.put('old.md', 'v1', runHeader('first'))).json;
    await d.put('old.md', 'v2', runHeader('second'));
    expect((await d.call('DELETE', '/v0/artifacts/old.md', { headers: runHeader('third') })).status).toBe(200);
    await expireTrash(doc.art_id);
    await purgeArtifacts(api.ctx);
    const r = await d.call('POST', '/v0/runs/second/revert', { json: {} });
    expect(r.status).toBe(410);
    expect(r.code).toBe('HISTORY_PURGED');
  });

  it('the number of live snapshots per drive is bounded (50)', async () => {
    const d = await driveClient(api);
    for (let i = 0; i < 50; i++)
      expect((await d.call('POST', '/v0/snapshots', { json: { label: `s${i}` } })).status).toBe(201);
    const over = await d.call('POST', '/v0/snapshots', { json: { label: 'one too many' } });
    expect(over.status).toBe(409);
    expect(over.code).toBe('SNAPSHOT_LIMIT_REACHED');
  });
});

describe('rewind', () => {
  it('rewinds one prefix to a snapshot (as a run that can be reverted), leaving the rest of the drive alone', async () => {
    const d = await driveClient(api);
    await d.put('proj/a.md', 'a1');
    await d.put('proj/b.md', 'b1');
    await d.put('notes/n.md', 'n1');
    const snap = (await d.call('POST', '/v0/snapshots', { json: { label: 'good' } })).json;
    const good = await driveState(d);
    await d.put('proj/a.md', 'a2 broken');
    expect((await d.call('DELETE', '/v0/artifacts/proj/b.md')).status).toBe(200);
    await d.put('proj/c.md', 'c new');
    await d.put('notes/n.md', 'n2 kept');
    const broken = await driveState(d);

    const dry = await d.call('POST', '/v0/drives/me/rewind', {
      json: { to_snapshot: snap.snapshot_id, prefix: 'proj/', dry_run: true },
    });
    expect(dry.status).toBe(200);
    expect(dry.json.changes.length).toBe(3);
    expect(await driveState(d)).toEqual(broken);

    const done = await d.call('POST', '/v0/drives/me/rewind', {
      json: { to_snapshot: snap.snapshot_id, prefix: 'proj/' },
    });
    expect(done.status).toBe(200);
    expect(done.json.to_seq).toBe(snap.seq);
    const now = await driveState(d);
    expect(now['notes/n.md']).toBe(broken['notes/n.md']);
    expect(Object.fromEntries(Object.entries(now).filter(([p]) => p.startsWith('proj/')))).toEqual(
      Object.fromEntries(Object.entries(good).filter(([p]) => p.startsWith('proj/'))),
    );
    const undone = await d.call('POST', `/v0/runs/${done.json.revert_run_id}/revert`, { json: {} });
    expect(undone.status).toBe(200);
    expect(await driveState(d)).toEqual(broken);
    const both = await d.call('POST', '/v0/drives/me/rewind', { json: { to_seq: 1, to_snapshot: snap.snapshot_id } });
    expect([both.status, both.code]).toEqual([400, 'INVALID_ARGUMENT']);
  });
});
