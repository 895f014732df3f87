import { describe, expect, it } from 'vitest';
import { purgeExpired } from '../../src/files/purge.js';
import { storageUsedBytes } from '../../src/files/quota.js';
import { CLEANUP_SCHEDULE_ID } from '../../src/temporal/schedules.js';
import type { TestApi } from '../helpers/api.js';
import { ageBlobs, driveClient, objectExistsIn, sqlOn, useTestApi } from './client.js';

let api: TestApi;
useTestApi({}, (a) => {
  api = a;
});

const sql = (q: string, p: unknown[] = []) => sqlOn(api, q, p);
const objectExists = (hash: string) => objectExistsIn(api, hash);

describe('drive delete, trash and restore', () => {
  it('only the authenticated drive; deleting hides all data; trash shows it; restore rebases trashed retention', async () => {
    const d = await driveClient(api);
    const other = await driveClient(api);
    const kept = (await d.put('k/live.txt', 'live')).json;
    const trashed = (await d.put('k/old.txt', 'old')).json;
    await d.call('DELETE', `/v0/artifacts/${trashed.art_id}`);
    await sql(`update artifacts set purge_at = now() + interval '1 day' where id = ?`, [trashed.art_id]);

    expect((await other.call('DELETE', `/v0/drives/${d.driveId}`)).status).toBe(403);
    expect((await other.get(`/v0/drives/${d.driveId}/trash`)).status).toBe(403);
    const del = await d.call('DELETE', `/v0/drives/${d.driveId}`, { headers: { 'x-drive-actor': 'owner' } });
    expect(del.status).toBe(200);
    expect(del.json).toMatchObject({ ok: true, drive_id: d.driveId, retention_days: 30 });
    expect(del.json.purge_at).toEqual(expect.any(String));
    for (const p of ['/v0/artifacts', `/v0/artifacts/${kept.art_id}`, '/v0/events', '/v0/folders/k']) {
      expect((await d.get(p)).status).toBe(401);
    }
    expect((await d.call('DELETE', `/v0/drives/${d.driveId}`)).status).toBe(404);
    const trash = await d.get(`/v0/drives/${d.driveId}/trash`);
    expect(trash.status).toBe(200);
    expect(trash.json.drive).toMatchObject({ drive_id: d.driveId, purge_at: del.json.purge_at });
    expect(trash.json.items.map((i: any) => i.art_id)).toEqual([trashed.art_id]);

    const before = Date.now();
    const res = await d.call('POST', `/v0/drives/${d.driveId}/restore`, { headers: { 'x-drive-actor': 'owner' } });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ ok: true, drive_id: d.driveId, deleted_at: null, purge_at: null });
    expect((await d.call('POST', `/v0/drives/${d.driveId}/restore`)).status).toBe(404);
    expect((await d.get(`/v0/artifacts/${kept.art_id}`)).status).toBe(200);
    const after = (await d.get(`/v0/drives/${d.driveId}/trash`)).json;
    expect(after.drive).toBeNull();
    const purgeAt = new Date(after.items[0].purge_at).getTime();
    expect(purgeAt).toBeGreaterThanOrEqual(before + 30 * 86400_000 - 5000);
    const actions = (await d.events()).map((e) => e.action);
    expect(actions.slice(0, 2)).toEqual(['drive.restored', 'drive.deleted']);
  });

  it('trash pages with a keyset cursor', async () => {
    const d = await driveClient(api);
    for (let i = 0; i < 3; i++) {
      const a = (await d.put(`t/${i}`, `${i}`)).json;
      await d.call('DELETE', `/v0/artifacts/${a.art_id}`);
    }
    const p1 = (await d.get(`/v0/drives/${d.driveId}/trash?limit=2`)).json;
    const p2 = (await d.get(`/v0/drives/${d.driveId}/trash?limit=2&cursor=${p1.next_cursor}`)).json;
    expect([...p1.items, ...p2.items].map((i: any) => i.path)).toEqual(['t/2', 't/1', 't/0']);
    expect(p2.next_cursor).toBeNull();
  });
});

describe('purge', () => {
  it('hard-deletes trashed artifacts past purge_at with versions, frees quota, keeps shared bytes, then deletes unreferenced bytes', async () => {
    const d = await driveClient(api);
    const unique = `unique-${Date.now()}-${Math.random()}`;
    const a = (await d.put('p/a', unique)).json;
    const a2 = (await d.put('p/a', `${unique}-v2`)).json;
    const shared = (await d.put('p/shared', `shared-${unique}`)).json;
    const twin = (await d.put('p/twin', `shared-${unique}`)).json;
    const used = await storageUsedBytes(api.ctx.orm.em.fork(), d.driveId);
    for (const id of [a.art_id, shared.art_id]) await d.call('DELETE', `/v0/artifacts/${id}`);
    await sql(`update artifacts set purge_at = now() - interval '1 second' where id in (?, ?)`, [
      a.art_id,
      shared.art_id,
    ]);
    await purgeExpired(api.ctx);
    await ageBlobs(api, [a.hash, a2.hash, shared.hash]);
    await purgeExpired(api.ctx);
    expect((await d.call('POST', `/v0/artifacts/${a.art_id}/restore`)).status).toBe(404);
    expect(await sql(`select 1 from artifact_versions where art_id = ?`, [a.art_id])).toHaveLength(0);
    expect(await storageUsedBytes(api.ctx.orm.em.fork(), d.driveId)).toBe(
      used - Number(a.size_bytes) - (unique.length + 3) - shared.size_bytes,
    );
    expect(await objectExists(a.hash)).toBe(false);
    expect(await objectExists(a2.hash)).toBe(false);
    expect(await objectExists(twin.hash)).toBe(true);
    expect((await d.get(`/v0/artifacts/${twin.art_id}/download`)).bytes.toString()).toBe(`shared-${unique}`);
    const purged = await d.events(`?action=artifact.purged`);
    expect(purged.map((e) => e.art_id).sort()).toEqual([a.art_id, shared.art_id].sort());
  });

  it("purges trashed folders, leaves a deleted drive's children to the drive purge, and purges the drive with all its data", async () => {
    const d = await driveClient(api);
    const f = (await d.call('POST', '/v0/folders/pf')).json;
    await d.call('DELETE', `/v0/folders/${f.fld_id}`);
    await sql(`update folders set purge_at = now() - interval '1 second' where id = ?`, [f.fld_id]);
    await purgeExpired(api.ctx);
    expect(await sql(`select 1 from folders where id = ?`, [f.fld_id])).toHaveLength(0);
    expect((await d.events('?action=folder.purged'))[0].fld_id).toBe(f.fld_id);
    const a = (await d.put('pd/a', `drive-purge-${Math.random()}`)).json;
    await d.call('DELETE', `/v0/artifacts/${a.art_id}`);
    // The drive goes first: the worker's cleanup schedule may run at any moment, and must find the artifact's
    // retention over only once the drive is in trash (else it rightly purges the artifact itself).
    expect((await d.call('DELETE', `/v0/drives/${d.driveId}`)).status).toBe(200);
    await sql(`update artifacts set purge_at = now() - interval '1 second' where id = ?`, [a.art_id]);
    await purgeExpired(api.ctx);
    expect(await sql(`select 1 from artifacts where id = ?`, [a.art_id])).toHaveLength(1);
    await sql(`update drives set purge_at = now() - interval '1 second' where id = ?`, [d.driveId]);
    await purgeExpired(api.ctx);
    await ageBlobs(api, [a.hash]);
    await purgeExpired(api.ctx);
    for (const t of ['artifacts', 'events', 'drive_storage']) {
      expect(await sql(`select 1 from ${t} where drive_id = ?`, [d.driveId])).toHaveLength(0);
    }
    expect(await objectExists(a.hash)).toBe(false);
    expect((await d.call('POST', `/v0/drives/${d.driveId}/restore`)).status).toBe(401);
  });

  it('the Temporal cleanup schedule purges on its own', async () => {
    const d = await driveClient(api);
    const a = (await d.put('sched/a', 'x')).json;
    await d.call('DELETE', `/v0/artifacts/${a.art_id}`);
    await sql(`update artifacts set purge_at = now() - interval '1 second' where id = ?`, [a.art_id]);
    await api.ctx.temporal.schedule
      .getHandle(CLEANUP_SCHEDULE_ID)
      .trigger()
      .catch(() => undefined);
    const deadline = Date.now() + 30_000;
    let status = 0;
    while (Date.now() < deadline) {
      status = (await d.call('POST', `/v0/artifacts/${a.art_id}/restore`)).status;
      if (status === 404) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    expect(status).toBe(404);
  });
});
