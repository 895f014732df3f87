import { describe, expect, it } from 'vitest';
import type { TestApi } from '../helpers/api.js';
import { type DriveClient, useTestApi } from './client.js';

let api: TestApi;
let d: DriveClient;
useTestApi({}, (a, dc) => {
  api = a;
  d = dc;
});

const post = (path: string, json?: unknown, headers: Record<string, string> = {}) =>
  d.call('POST', `/v0/folders/${path}`, { json, headers });

describe('folders', () => {
  it('create is idempotent (201, same row unchanged); get and meta by path and id', async () => {
    const a = await post('proj', { description: 'first' }, { 'x-drive-actor': 'maker' });
    expect(a.status).toBe(201);
    expect(a.json).toMatchObject({ path: '/proj/', description: 'first', inherit_grants: true, deleted_at: null });
    expect(a.json.fld_id).toMatch(/^fld_[0-9a-z]{26}$/);
    const again = await post('proj/', { description: 'second' });
    expect(again.status).toBe(201);
    expect(again.json).toEqual(a.json);
    for (const p of [
      '/v0/folders/proj',
      '/v0/folders/proj/meta',
      `/v0/folders/${a.json.fld_id}`,
      `/v0/folders/${a.json.fld_id}/meta`,
    ]) {
      expect((await d.get(p)).json).toEqual({ ...a.json, implied: false });
    }
    expect((await d.get('/v0/folders/nope')).status).toBe(404);
    const events = await d.events('?action=folder.created');
    expect(events.filter((e) => e.fld_id === a.json.fld_id)).toHaveLength(1);
    expect(events[0].actor_name).toBe('maker');
  });

  it('create: 409 FOLDER_PATH_CONFLICT when a live artifact sits at the file form; 403 under _wiki; 400 bad path', async () => {
    await d.put('clash', 'x');
    const r = await post('clash');
    expect([r.status, r.code]).toEqual([409, 'FOLDER_PATH_CONFLICT']);
    expect((await post('_wiki/x')).code).toBe('WIKI_RESERVED');
    expect((await post('a..b/..%2Fc')).code).toBe('INVALID_PATH');
  });

  it('PATCH: absent unchanged, null clears; by path and by id', async () => {
    const f = (await post('meta-f', { description: 'd' })).json;
    const p1 = await d.call('PATCH', '/v0/folders/meta-f', { json: { inherit_grants: false } });
    expect(p1.json).toMatchObject({ description: 'd', inherit_grants: false });
    const p2 = await d.call('PATCH', `/v0/folders/${f.fld_id}`, { json: { description: null, inherit_grants: null } });
    expect(p2.json).toMatchObject({ description: null, inherit_grants: false, fld_id: f.fld_id });
    const p3 = await d.call('PATCH', `/v0/folders/${f.fld_id}`, { json: { description: 'new' } });
    expect(p3.json.description).toBe('new');
  });

  it('delete: 409 FOLDER_RECURSIVE_REQUIRED with counts; recursive trashes everything in one go with the same purge_at', async () => {
    const f = (await post('tree')).json;
    await post('tree/sub');
    const a1 = (await d.put('tree/a.txt', '1')).json;
    const a2 = (await d.put('tree/sub/b.txt', '2')).json;
    const outside = (await d.put('treehouse/c.txt', '3')).json;
    const r = await d.call('DELETE', '/v0/folders/tree');
    expect([r.status, r.code]).toEqual([409, 'FOLDER_RECURSIVE_REQUIRED']);
    expect(r.json.detail.error.colliding_path).toEqual({ path: '/tree/', n_artifacts: 2, n_subfolders: 1 });
    const del = await d.call('DELETE', `/v0/folders/${f.fld_id}?recursive=true`, {
      headers: { 'x-drive-actor': 'rm' },
    });
    expect(del.status).toBe(200);
    expect(del.json).toMatchObject({
      ok: true,
      fld_id: f.fld_id,
      path: '/tree/',
      n_subfolders_deleted: 1,
      n_artifacts_deleted: 2,
      retention_days: 30,
    });
    for (const id of [a1.art_id, a2.art_id]) expect((await d.get(`/v0/artifacts/${id}`)).status).toBe(404);
    expect((await d.get(`/v0/artifacts/${outside.art_id}`)).status).toBe(200);
    expect((await d.get('/v0/folders/tree/sub')).status).toBe(404);
    const evs = await d.events(`?art_id=${a2.art_id}&action=artifact.deleted`);
    expect(evs[0]).toMatchObject({ actor_name: 'rm', metadata: { cause: 'folder_delete', path: 'tree/sub/b.txt' } });
    const trashed = await api.ctx.orm.em
      .fork()
      .execute(`select distinct purge_at from artifacts where id in (?, ?)`, [a1.art_id, a2.art_id]);
    expect(trashed).toHaveLength(1);
    const emptyF = (await post('empty')).json;
    expect((await d.call('DELETE', `/v0/folders/${emptyF.fld_id}`)).json.n_artifacts_deleted).toBe(0);
    const restored = await d.call('POST', `/v0/artifacts/${a1.art_id}/restore`);
    expect(restored.json.path).toBe('tree/a.txt');
  });

  it('move: rewrites every live descendant path in one transaction; id stays; events per artifact', async () => {
    const f = (await post('src')).json;
    await post('src/inner');
    const a = (await d.put('src/a.md', 'a')).json;
    const b = (await d.put('src/inner/b.md', 'b')).json;
    const keep = (await d.put('srcfile', 'k')).json;
    const m = await d.call('POST', '/v0/folders/src/move', {
      json: { path: 'dst/nested' },
      headers: { 'x-drive-actor': 'mv' },
    });
    expect(m.status).toBe(200);
    expect(m.json).toMatchObject({ fld_id: f.fld_id, path: '/dst/nested/' });
    expect((await d.get(`/v0/artifacts/${a.art_id}`)).json.path).toBe('dst/nested/a.md');
    expect((await d.get(`/v0/artifacts/${b.art_id}`)).json.path).toBe('dst/nested/inner/b.md');
    expect((await d.get(`/v0/artifacts/${keep.art_id}`)).json.path).toBe('srcfile');
    expect((await d.get('/v0/folders/dst/nested/inner')).status).toBe(200);
    const [ev] = await d.events(`?art_id=${b.art_id}&limit=1`);
    expect(ev).toMatchObject({
      action: 'artifact.renamed',
      actor_name: 'mv',
      metadata: { from: 'src/inner/b.md', to: 'dst/nested/inner/b.md', cause: 'folder_move' },
    });
    const back = await d.call('POST', `/v0/folders/${f.fld_id}/move`, { json: { path: 'src' } });
    expect(back.json.path).toBe('/src/');
  });

  it('move: FOLDER_PATH_CONFLICT on a live folder or artifact at the destination, and into itself; nothing changes', async () => {
    const f = (await post('m1')).json;
    const a = (await d.put('m1/x', 'x')).json;
    await post('m2');
    await d.put('m3/y', 'y');
    await d.put('m4', 'file');
    for (const dest of ['m2', 'm3', 'm4', 'm1/deeper']) {
      const r = await d.call('POST', `/v0/folders/${f.fld_id}/move`, { json: { path: dest } });
      expect([dest, r.status, r.code]).toEqual([dest, 409, 'FOLDER_PATH_CONFLICT']);
    }
    expect((await d.get(`/v0/artifacts/${a.art_id}`)).json.path).toBe('m1/x');
    expect((await d.get(`/v0/folders/${f.fld_id}`)).json.path).toBe('/m1/');
  });
});

describe('folder move limits', () => {
  it('refuses a move that would push a descendant path over 256 characters, changing nothing', async () => {
    const f = (await post('short')).json;
    const a = (await d.put(`short/${'n'.repeat(240)}`, 'x')).json;
    const r = await d.call('POST', `/v0/folders/${f.fld_id}/move`, { json: { path: 'a-much-longer-destination' } });
    expect([r.status, r.code]).toEqual([400, 'INVALID_PATH']);
    expect((await d.get(`/v0/artifacts/${a.art_id}`)).json.path).toBe(`short/${'n'.repeat(240)}`);
    expect((await d.call('POST', `/v0/folders/${f.fld_id}/move`, { json: { path: 'tiny' } })).status).toBe(200);
  });
});
