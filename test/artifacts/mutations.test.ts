import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { ArtifactChange } from '../../src/platform/after-commit.js';
import type { TestApi } from '../helpers/api.js';
import { driveClient, objectExistsIn, useTestApi, type DriveClient } from './client.js';

let api: TestApi;
let d: DriveClient;
useTestApi({ STORAGE_QUOTA_BYTES: '1000', TRASH_RETENTION_S: String(7 * 86400) }, (a, dc) => {
  api = a;
  d = dc;
});

describe('rename', () => {
  it('changes only path and updated_at, keeps id/history/labels/metadata/source, emits artifact.renamed', async () => {
    const a = (
      await d.put('mv/a.md', 'x', {
        'x-drive-labels': 'k',
        'x-drive-metadata': '{"m":1}',
        'x-drive-source': '{"refs":[{"type":"t","id":"i"}]}',
      })
    ).json;
    await d.put('mv/a.md', 'y');
    const r = await d.call('PATCH', `/v0/artifacts/${a.art_id}`, {
      json: { path: 'mv/b.md' },
      headers: { 'x-drive-actor': 'mover' },
    });
    expect(r.status).toBe(200);
    const { path, updated_at, url, ...rest } = r.json;
    const before = (await d.get(`/v0/artifacts/${a.art_id}/versions/1`)).json;
    expect(path).toBe('mv/b.md');
    expect(url.endsWith('/mv/b.md')).toBe(true);
    expect(rest).toMatchObject({
      art_id: a.art_id,
      version_number: 2,
      labels: ['k'],
      metadata: { m: 1 },
      source: { refs: [{ type: 't', id: 'i' }] },
    });
    expect(before.version_number).toBe(1);
    expect((await d.get('/v0/artifacts/mv/a.md/meta')).status).toBe(404);
    const [ev] = await d.events(`?art_id=${a.art_id}&limit=1`);
    expect(ev).toMatchObject({
      action: 'artifact.renamed',
      actor_name: 'mover',
      metadata: { from: 'mv/a.md', to: 'mv/b.md' },
    });
  });

  it('409 PATH_CONFLICT on a taken target, 412 on stale If-Match, 403 into _wiki/, 400 bad path', async () => {
    const a = (await d.put('mv/c', 'c')).json;
    await d.put('mv/d', 'd');
    const taken = await d.call('PATCH', `/v0/artifacts/${a.art_id}`, { json: { path: 'mv/d' } });
    expect([taken.status, taken.code]).toEqual([409, 'PATH_CONFLICT']);
    expect(
      (await d.call('PATCH', `/v0/artifacts/${a.art_id}`, { json: { path: 'mv/e' }, headers: { 'if-match': '7' } }))
        .status,
    ).toBe(412);
    expect((await d.call('PATCH', `/v0/artifacts/${a.art_id}`, { json: { path: '_wiki/x' } })).code).toBe(
      'WIKI_RESERVED',
    );
    expect((await d.call('PATCH', `/v0/artifacts/${a.art_id}`, { json: { path: '/abs' } })).code).toBe('INVALID_PATH');
    expect((await d.call('PATCH', `/v0/artifacts/${a.art_id}`, { json: {} })).status).toBe(422);
  });
});

describe('copy and quota', () => {
  it('copy: new id, version 1, source ref to the original, bytes shared; 409 on a taken path', async () => {
    const a = (await d.put('cp/src.txt', 'shared bytes', { 'x-drive-labels': 'l1' })).json;
    await d.put('cp/src.txt', 'shared bytes v2');
    const c = await d.call('POST', `/v0/artifacts/${a.art_id}/copy`, {
      json: { path: 'cp/dst.txt' },
      headers: { 'x-drive-actor': 'copier' },
    });
    expect(c.status).toBe(200);
    expect(c.json.art_id).not.toBe(a.art_id);
    expect(c.json).toMatchObject({
      path: 'cp/dst.txt',
      version_number: 1,
      labels: ['l1'],
      source: { refs: [{ type: 'artifact', id: a.art_id }] },
    });
    expect((await d.get(`/v0/artifacts/${c.json.art_id}/download`)).bytes.toString()).toBe('shared bytes v2');
    const custom = await d.call('POST', `/v0/artifacts/${a.art_id}/copy`, {
      json: { path: 'cp/dst2.txt', source: { refs: [] } },
    });
    expect(custom.json.source).toEqual({ refs: [] });
    const conflict = await d.call('POST', `/v0/artifacts/${a.art_id}/copy`, { json: { path: 'cp/dst.txt' } });
    expect([conflict.status, conflict.code]).toEqual([409, 'PATH_CONFLICT']);
    const [ev] = await d.events(`?art_id=${c.json.art_id}`);
    expect(ev).toMatchObject({
      action: 'artifact.copied',
      actor_name: 'copier',
      metadata: { source_art_id: a.art_id },
    });
  });

  it('copies count toward quota: 413 STORAGE_QUOTA_EXCEEDED on copy and on upload', async () => {
    const q = await driveClient(api);
    const a = (await q.put('big', 'x'.repeat(400))).json;
    expect((await q.call('POST', `/v0/artifacts/${a.art_id}/copy`, { json: { path: 'big2' } })).status).toBe(200);
    const over = await q.call('POST', `/v0/artifacts/${a.art_id}/copy`, { json: { path: 'big3' } });
    expect([over.status, over.code]).toEqual([413, 'STORAGE_QUOTA_EXCEEDED']);
    const refused = `${'y'.repeat(290)}${Math.random()}`.slice(0, 300);
    const up = await q.put('other', refused);
    expect([up.status, up.code]).toEqual([413, 'STORAGE_QUOTA_EXCEEDED']);
    expect(up.json.detail.error).toMatchObject({ used_bytes: 800, limit_bytes: 1000, requested_bytes: 300 });
    expect(await objectExistsIn(api, createHash('sha256').update(refused).digest('hex'))).toBe(false);
    expect((await q.get('/v0/artifacts/other/meta')).status).toBe(404);
    expect((await q.get('/v0/artifacts')).json.items).toHaveLength(2);
  });

  it('parallel writes of a new drive never pass the quota together: exactly what fits is accepted and counted', async () => {
    const q = await driveClient(api);
    // 16 writers of 150 bytes against 1000: six fit, whatever the interleaving of the counter row's creation.
    const results = await Promise.all(
      Array.from({ length: 16 }, (_, i) => q.put(`race/${i}`, `${i}`.padEnd(150, `${Math.random()}`))),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([...Array(6).fill(200), ...Array(10).fill(413)]);
    const { storageUsedBytes } = await import('../../src/files/quota.js');
    expect(await storageUsedBytes(api.ctx.orm.em.fork(), q.driveId)).toBe(900);
  });
});

describe('delete and restore', () => {
  it('delete by path and by id: purge_at, restore URL, 404 when absent, 412 on stale If-Match, 403 on _wiki/', async () => {
    const a = (await d.put('del/a', 'a')).json;
    const stale = await d.call('DELETE', `/v0/artifacts/del/a`, { headers: { 'if-match': '5' } });
    expect(stale.status).toBe(412);
    const r = await d.call('DELETE', `/v0/artifacts/del/a`, {
      headers: { 'if-match': '1', 'x-drive-actor': 'cleaner' },
    });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({
      ok: true,
      art_id: a.art_id,
      path: 'del/a',
      retention_days: 7,
      restore_url: `${api.url}/v0/artifacts/${a.art_id}/restore`,
    });
    expect(new Date(r.json.purge_at).getTime() - new Date(r.json.deleted_at).getTime()).toBe(7 * 86400 * 1000);
    expect((await d.get(`/v0/artifacts/${a.art_id}`)).status).toBe(404);
    const again = await d.call('DELETE', `/v0/artifacts/${a.art_id}`);
    expect([again.status, again.code]).toEqual([404, 'ARTIFACT_NOT_FOUND']);
    const b = (await d.put('del/b', 'b')).json;
    expect((await d.call('DELETE', `/v0/artifacts/${b.art_id}`)).json.art_id).toBe(b.art_id);
    expect((await d.call('DELETE', `/v0/artifacts/del/none`)).code).toBe('ARTIFACT_NOT_FOUND');
    expect((await d.call('DELETE', `/v0/artifacts/_wiki/x.md`)).code).toBe('WIKI_RESERVED');
    const [ev] = await d.events(`?art_id=${a.art_id}&action=artifact.deleted`);
    expect(ev.actor_name).toBe('cleaner');
  });

  it('by-id delete is routed ahead of the path form', async () => {
    const a = (await d.put('idlike/x', 'x')).json;
    // An id-shaped single segment is the id form for PUT too (upload by id, sharing), so the decoy gets its path by
    // rename.
    const other = (await d.put('idlike/decoy', 'decoy')).json;
    const decoy = (await d.call('PATCH', `/v0/artifacts/${other.art_id}`, { json: { path: a.art_id } })).json;
    expect(decoy.path).toBe(a.art_id);
    const r = await d.call('DELETE', `/v0/artifacts/${a.art_id}`);
    expect(r.json.art_id).toBe(a.art_id);
    expect((await d.get(`/v0/artifacts/${decoy.art_id}`)).status).toBe(200);
  });

  it('restore: free path -> live at the same path, deleted_at/purge_at cleared', async () => {
    const a = (await d.put('rs/free', 'a')).json;
    await d.call('DELETE', `/v0/artifacts/${a.art_id}`);
    const r = await d.call('POST', `/v0/artifacts/${a.art_id}/restore`, { headers: { 'x-drive-actor': 'undo' } });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({
      art_id: a.art_id,
      path: 'rs/free',
      deleted_at: null,
      purge_at: null,
      version_number: 1,
    });
    const [ev] = await d.events(`?art_id=${a.art_id}&limit=1`);
    expect(ev).toMatchObject({ action: 'artifact.restored', actor_name: 'undo' });
  });

  it('restore: live artifact or unknown id -> 404', async () => {
    const a = (await d.put('rs/live', 'a')).json;
    expect((await d.call('POST', `/v0/artifacts/${a.art_id}/restore`)).status).toBe(404);
    expect((await d.call('POST', `/v0/artifacts/art_00000000000000000000000000/restore`)).status).toBe(404);
  });

  it('restore: occupied path without options -> 409 PATH_OCCUPIED with restore_options that work', async () => {
    const old = (await d.put('rs/occ.md', 'old')).json;
    await d.call('DELETE', `/v0/artifacts/${old.art_id}`);
    const occupant = (await d.put('rs/occ.md', 'new')).json;
    const r = await d.call('POST', `/v0/artifacts/${old.art_id}/restore`);
    expect([r.status, r.code]).toEqual([409, 'PATH_OCCUPIED']);
    const opts = r.json.detail.error.restore_options;
    expect(opts.force_overwrite).toBe(`${api.url}/v0/artifacts/${old.art_id}/restore?overwrite=true`);
    expect(opts.rename_to).toMatch(
      new RegExp(`^${api.url}/v0/artifacts/${old.art_id}/restore\\?rename=rs%2Focc-restored-\\d+T\\d+\\.md$`),
    );
    const viaRename = await d.call('POST', opts.rename_to.slice(api.url.length));
    expect(viaRename.status).toBe(200);
    expect(viaRename.json.path).toMatch(/^rs\/occ-restored-/);
    expect((await d.get(`/v0/artifacts/${occupant.art_id}`)).status).toBe(404);
    const [displaced] = await d.events(`?art_id=${occupant.art_id}&action=artifact.deleted`);
    expect(displaced.metadata.cause).toBe('restore_conflict_rename');
  });

  it('restore: overwrite=true soft-deletes the occupant with cause restore_conflict_overwrite', async () => {
    const old = (await d.put('rs/ow', 'old')).json;
    await d.call('DELETE', `/v0/artifacts/${old.art_id}`);
    const occupant = (await d.put('rs/ow', 'new')).json;
    const r = await d.call('POST', `/v0/artifacts/${old.art_id}/restore?overwrite=true`, {
      headers: { 'x-drive-actor': 'fixer' },
    });
    expect(r.json).toMatchObject({ art_id: old.art_id, path: 'rs/ow' });
    expect((await d.get(`/v0/artifacts/${old.art_id}/download`)).bytes.toString()).toBe('old');
    const [ev] = await d.events(`?art_id=${occupant.art_id}&action=artifact.deleted`);
    expect(ev).toMatchObject({ actor_name: 'fixer', metadata: { cause: 'restore_conflict_overwrite' } });
    const trashRow = await d.call('POST', `/v0/artifacts/${occupant.art_id}/restore?rename=rs/ow-2`);
    expect(trashRow.json.path).toBe('rs/ow-2');
  });

  it('restore: overwrite=true with a free path just restores; rename to a free path with nothing at the original moves it', async () => {
    const a = (await d.put('rs/o2', 'a')).json;
    await d.call('DELETE', `/v0/artifacts/${a.art_id}`);
    expect((await d.call('POST', `/v0/artifacts/${a.art_id}/restore?overwrite=true`)).json.path).toBe('rs/o2');
    await d.call('DELETE', `/v0/artifacts/${a.art_id}`);
    const r = await d.call('POST', `/v0/artifacts/${a.art_id}/restore?rename=rs/o3`);
    expect(r.json.path).toBe('rs/o3');
    expect((await d.get('/v0/artifacts/rs/o2/meta')).status).toBe(404);
  });

  it('restore: rename to a taken path -> 409 PATH_CONFLICT; rename with overwrite -> 422; bad rename -> 400', async () => {
    const a = (await d.put('rs/r1', 'a')).json;
    await d.put('rs/r2', 'b');
    await d.call('DELETE', `/v0/artifacts/${a.art_id}`);
    expect((await d.call('POST', `/v0/artifacts/${a.art_id}/restore?rename=rs/r2`)).code).toBe('PATH_CONFLICT');
    expect((await d.call('POST', `/v0/artifacts/${a.art_id}/restore?rename=rs/r3&overwrite=true`)).status).toBe(422);
    expect((await d.call('POST', `/v0/artifacts/${a.art_id}/restore?rename=/x`)).code).toBe('INVALID_PATH');
    expect((await d.call('POST', `/v0/artifacts/${a.art_id}/restore?rename=_wiki/x`)).code).toBe('WIKI_RESERVED');
  });
});

describe('events and hooks', () => {
  it('every mutation appends one event and reaches the artifact hook after commit', async () => {
    const heard: ArtifactChange[] = [];
    const off = api.ctx.artifactChanges.subscribe((c) => void heard.push(c));
    try {
      const e = await driveClient(api);
      const a = (await e.put('ev/a', '1')).json;
      await e.put('ev/a', '2');
      await e.call('PATCH', `/v0/artifacts/${a.art_id}`, { json: { path: 'ev/b' } });
      const c = (await e.call('POST', `/v0/artifacts/${a.art_id}/copy`, { json: { path: 'ev/c' } })).json;
      await e.call('DELETE', `/v0/artifacts/${a.art_id}`);
      await e.call('POST', `/v0/artifacts/${a.art_id}/restore`);
      await e.put('ev/fail', 'x', { 'if-match': '3' });
      const events = await e.events();
      expect(events.map((x) => x.action)).toEqual([
        'artifact.restored',
        'artifact.deleted',
        'artifact.copied',
        'artifact.renamed',
        'artifact.updated',
        'artifact.created',
      ]);
      expect(
        heard
          .filter((h) => h.driveId === e.driveId)
          .map((h) => h.action)
          .reverse(),
      ).toEqual(events.map((x) => x.action));
      expect(heard.find((h) => h.action === 'artifact.copied')?.artId).toBe(c.art_id);
      const page1 = (await e.call('GET', '/v0/events?limit=4')).json;
      const page2 = (await e.call('GET', `/v0/events?limit=4&cursor=${page1.next_cursor}`)).json;
      expect([...page1.items, ...page2.items].map((x: any) => x.id)).toEqual(events.map((x) => x.id));
      expect(page2.next_cursor).toBeNull();
      const oldest = page1.items[3].created_at;
      const before = (await e.call('GET', `/v0/events?before=${encodeURIComponent(oldest)}`)).json.items;
      expect(before.map((x: any) => x.id)).toEqual(events.slice(4).map((x) => x.id));
      const since = (await e.call('GET', `/v0/events?since=${encodeURIComponent(oldest)}&action=artifact.deleted`)).json
        .items;
      expect(since.map((x: any) => x.action)).toEqual(['artifact.deleted']);
      expect((await e.call('GET', '/v0/events?limit=201')).status).toBe(422);
      expect((await e.call('GET', '/v0/events?cursor=zzz')).code).toBe('BAD_CURSOR');
      const other = await driveClient(api);
      expect(await other.events()).toEqual([]);
    } finally {
      off();
    }
  });
});
