import { describe, expect, it } from 'vitest';
import { grant, sleep, useParties, type Parties } from './helpers.js';

let p: Parties;
useParties((parties) => (p = parties));

describe('grants', () => {
  it('a user grant by email lets the grantee read by id; a stranger gets 404 everywhere; the owner manages it', async () => {
    const { a, b, x } = p;
    const art = (await a.put('g1/report.md', 'hello')).json;
    // Before the grant: 404, the same as for an id that does not exist.
    expect((await b.get(`/v0/artifacts/${art.art_id}`)).status).toBe(404);

    const g = await grant(a, art.art_id, { type: 'user', email: b.email.toUpperCase() }, 'viewer');
    expect(g.status, JSON.stringify(g.json)).toBe(201);
    expect(g.json).toMatchObject({
      resource_type: 'artifact',
      resource_id: art.art_id,
      principal_type: 'user',
      principal_email: b.email,
      role: 'viewer',
      can_manage: false,
      can_share: false,
      expires_at: null,
    });
    expect(g.json.id).toMatch(/^grn_/);
    // Create-or-fetch: the same principal on the same resource is the same grant.
    const again = await grant(a, art.art_id, { type: 'user', email: b.email }, 'viewer');
    expect(again.json.id).toBe(g.json.id);

    for (const path of [`/v0/artifacts/${art.art_id}`, `/v0/artifacts/${art.art_id}/meta`]) {
      const r = await b.get(path);
      expect(r.status, path).toBe(200);
      expect(r.json).toMatchObject({ art_id: art.art_id, drive_id: a.driveId, path: 'g1/report.md' });
    }
    expect((await b.get(`/v0/artifacts/${art.art_id}/download`)).bytes.toString()).toBe('hello');
    expect((await b.get(`/v0/artifacts/${art.art_id}/versions`)).json.items.map((v: any) => v.version_number)).toEqual([
      1,
    ]);
    expect((await b.get(`/v0/artifacts/${art.art_id}/versions/1`)).status).toBe(200);
    expect((await b.get(`/v0/artifacts/${art.art_id}/versions/1/download`)).bytes.toString()).toBe('hello');
    expect((await b.get(`/v0/artifacts/${art.art_id}/download-url`)).json).toMatchObject({ direct: false });
    expect((await b.get(`/v0/artifacts/${art.art_id}/versions/1/download-url`)).status).toBe(200);
    // Paths are the caller's own drive: the owner's path means nothing to B.
    expect((await b.get('/v0/artifacts/g1/report.md/meta')).status).toBe(404);
    // A viewer cannot write (it can read, so 403 tells it nothing new), nor manage grants.
    const w = await b.call('PUT', `/v0/artifacts/${art.art_id}`, { body: 'nope' });
    expect([w.status, w.code]).toEqual([403, 'PERMISSION_DENIED']);
    expect((await b.call('DELETE', `/v0/artifacts/${art.art_id}`)).status).toBe(403);
    expect((await b.get(`/v0/grants?resource=${art.art_id}`)).status).toBe(403);

    // A stranger: 404 on every door, including the grant itself.
    for (const [m, path] of [
      ['GET', `/v0/artifacts/${art.art_id}`],
      ['GET', `/v0/artifacts/${art.art_id}/download`],
      ['GET', `/v0/artifacts/${art.art_id}/versions`],
      ['GET', `/v0/artifacts/${art.art_id}/download-url`],
      ['PUT', `/v0/artifacts/${art.art_id}`],
      ['DELETE', `/v0/artifacts/${art.art_id}`],
      ['GET', `/v0/grants?resource=${art.art_id}`],
      ['PATCH', `/v0/grants/${g.json.id}`],
      ['DELETE', `/v0/grants/${g.json.id}`],
    ] as const) {
      const r = await x.call(m, path, m === 'PATCH' ? { json: { role: 'manager' } } : m === 'PUT' ? { body: 'x' } : {});
      expect(r.status, `${m} ${path}`).toBe(404);
    }

    const list = await a.get(`/v0/grants?resource=${art.art_id}`);
    expect(list.json.items.map((i: any) => i.id)).toEqual([g.json.id]);
    // By path as well (the owner's own drive).
    expect((await a.get('/v0/grants?resource=g1/report.md')).json.items).toHaveLength(1);
    const events = await a.events(`?art_id=${art.art_id}&action=grant.created`);
    expect(events[0]).toMatchObject({ action: 'grant.created', metadata: { grn_id: g.json.id, role: 'viewer' } });
  });

  it("an agent grant with editor role writes new versions by id, with events in the owner's log", async () => {
    const { a, c } = p;
    const art = (await a.put('g2/notes.txt', 'v1')).json;
    const g = await grant(a, art.art_id, { type: 'agent', id: c.aid }, 'editor', {});
    expect(g.status).toBe(201);
    expect(g.json).toMatchObject({ can_share: true, can_manage: false });
    const w = await c.call('PUT', `/v0/artifacts/${art.art_id}`, {
      body: 'v2 by agent',
      headers: { 'x-drive-actor': 'agent-c', 'x-drive-change-summary': 'edit' },
    });
    expect(w.status, JSON.stringify(w.json)).toBe(200);
    expect(w.json).toMatchObject({ art_id: art.art_id, drive_id: a.driveId, version_number: 2, path: 'g2/notes.txt' });
    // If-Match is honoured by id.
    expect(
      (await c.call('PUT', `/v0/artifacts/${art.art_id}`, { body: 'v3', headers: { 'if-match': '1' } })).status,
    ).toBe(412);
    expect((await a.get(`/v0/artifacts/${art.art_id}/download`)).bytes.toString()).toBe('v2 by agent');
    const [ev] = await a.events(`?art_id=${art.art_id}&action=artifact.updated`);
    expect(ev).toMatchObject({
      actor_name: 'agent-c',
      metadata: { version_number: 2, grantee: { drive_id: c.driveId, identity_id: c.aid, role: 'editor' } },
    });
    // The grantee's own drive got nothing.
    expect((await c.get('/v0/artifacts')).json.items).toEqual([]);
    // An editor cannot rename, delete or change visibility (manager only), nor grant.
    expect((await c.call('PATCH', `/v0/artifacts/${art.art_id}`, { json: { path: 'g2/moved.txt' } })).status).toBe(403);
    expect(
      (await c.call('PUT', `/v0/artifacts/${art.art_id}`, { body: 'x', headers: { 'x-drive-visibility': 'public' } }))
        .status,
    ).toBe(403);
    expect((await grant(c, art.art_id, { type: 'anyone' }, 'viewer')).status).toBe(403);
    // The owner can still write by id too.
    expect((await a.call('PUT', `/v0/artifacts/${art.art_id}`, { body: 'v3' })).json.version_number).toBe(3);
  });

  it('a manager grant may rename, grant and list grants; PATCH changes role and clears expiry with null', async () => {
    const { a, b, c } = p;
    const art = (await a.put('g3/doc.md', 'x')).json;
    const g = await grant(a, art.art_id, { type: 'user', email: b.email }, 'manager', { expires_in: 3600 });
    expect(g.json.expires_at).not.toBeNull();
    const byB = await grant(b, art.art_id, { type: 'agent', id: c.aid }, 'viewer');
    expect(byB.status).toBe(201);
    expect(byB.json).toMatchObject({ drive_id: a.driveId, on_behalf_of: b.driveId });
    expect((await b.get(`/v0/grants?resource=${art.art_id}`)).json.items).toHaveLength(2);
    expect((await b.call('PATCH', `/v0/artifacts/${art.art_id}`, { json: { path: 'g3/renamed.md' } })).json.path).toBe(
      'g3/renamed.md',
    );

    const patched = await a.call('PATCH', `/v0/grants/${g.json.id}`, { json: { expires_in: null } });
    expect(patched.status).toBe(200);
    expect(patched.json.expires_at).toBeNull();
    const demoted = await a.call('PATCH', `/v0/grants/${g.json.id}`, { json: { role: 'viewer' } });
    expect(demoted.json).toMatchObject({ role: 'viewer', expires_at: null });
    expect((await b.get(`/v0/grants?resource=${art.art_id}`)).status).toBe(403);
    expect((await a.events(`?art_id=${art.art_id}&action=grant.updated`)).length).toBe(2);
  });

  it('expiry stops granting at the instant it passes; an expired grant is gone from lists', async () => {
    const { a, b } = p;
    const art = (await a.put('g4/brief.md', 'x')).json;
    const g = await grant(a, art.art_id, { type: 'user', email: b.email }, 'viewer', { expires_in: 1 });
    expect((await b.get(`/v0/artifacts/${art.art_id}`)).status).toBe(200);
    await sleep(1300);
    expect((await b.get(`/v0/artifacts/${art.art_id}`)).status).toBe(404);
    expect((await a.get(`/v0/grants?resource=${art.art_id}`)).json.items).toEqual([]);
    expect((await a.call('PATCH', `/v0/grants/${g.json.id}`, { json: { expires_in: null } })).status).toBe(404);
    // Granting again makes a fresh grant.
    const fresh = await grant(a, art.art_id, { type: 'user', email: b.email }, 'viewer');
    expect(fresh.json.id).not.toBe(g.json.id);
    expect((await b.get(`/v0/artifacts/${art.art_id}`)).status).toBe(200);
  });

  it('the grantee may revoke its own grant; others need can_manage; revocation is immediate', async () => {
    const { a, b, c, x } = p;
    const art = (await a.put('g5/x.md', 'x')).json;
    const gb = await grant(a, art.art_id, { type: 'user', email: b.email }, 'viewer');
    const gc = await grant(a, art.art_id, { type: 'agent', id: c.aid }, 'viewer');
    // C can read, but may not revoke B's grant.
    expect((await c.call('DELETE', `/v0/grants/${gb.json.id}`)).status).toBe(403);
    expect((await x.call('DELETE', `/v0/grants/${gb.json.id}`)).status).toBe(404);
    const own = await c.call('DELETE', `/v0/grants/${gc.json.id}`, { headers: { 'x-drive-actor': 'c-leaves' } });
    expect(own.status).toBe(200);
    expect(own.json).toMatchObject({ ok: true, id: gc.json.id });
    expect((await c.get(`/v0/artifacts/${art.art_id}`)).status).toBe(404);
    expect((await a.call('DELETE', `/v0/grants/${gb.json.id}`)).status).toBe(200);
    expect((await b.get(`/v0/artifacts/${art.art_id}`)).status).toBe(404);
    expect((await a.call('DELETE', `/v0/grants/${gb.json.id}`)).status).toBe(404);
    const revoked = await a.events(`?art_id=${art.art_id}&action=grant.revoked`);
    expect(revoked.map((e: any) => [e.metadata.grn_id, e.actor_name, e.metadata.by_grantee])).toEqual([
      [gb.json.id, null, false],
      [gc.json.id, 'c-leaves', true],
    ]);
  });

  it('principal rules: anyone takes nothing, agent needs an aid_, user exactly one of id and email', async () => {
    const { a } = p;
    const art = (await a.put('g6/x.md', 'x')).json;
    for (const principal of [
      { type: 'anyone', id: 'x' },
      { type: 'agent' },
      { type: 'agent', id: 'bob' },
      { type: 'user' },
      { type: 'user', id: 'usr_1', email: 'a@b.c' },
      { type: 'org' },
    ]) {
      const r = await grant(a, art.art_id, principal, 'viewer');
      expect([r.status, r.code], JSON.stringify(principal)).toEqual([400, 'INVALID_PRINCIPAL']);
    }
    expect((await grant(a, art.art_id, { type: 'anyone' }, 'owner')).status).toBe(422);
    expect((await grant(a, 'nowhere/at-all.md', { type: 'anyone' }, 'viewer')).status).toBe(404);
  });
});

describe('folder grants', () => {
  it('cover descendants now and later, list by folder, and stop below inherit_grants:false', async () => {
    const { a, b } = p;
    await a.put('proj/a.md', 'a');
    await a.put('proj/sub/b.md', 'b');
    await a.put('proj/secret/s.md', 's');
    await a.put('other/o.md', 'o');
    const proj = (await a.call('POST', '/v0/folders/proj', { json: {} })).json;
    const secret = (await a.call('POST', '/v0/folders/proj/secret', { json: {} })).json;
    expect(
      (await a.call('PATCH', `/v0/folders/${secret.fld_id}`, { json: { inherit_grants: false } })).json.inherit_grants,
    ).toBe(false);
    const g = await grant(a, '/proj/', { type: 'user', email: b.email }, 'viewer');
    expect(g.json).toMatchObject({ resource_type: 'folder', resource_id: proj.fld_id });

    const ids = Object.fromEntries(((await a.get('/v0/artifacts')).json.items as any[]).map((i) => [i.path, i.art_id]));
    const later = (await a.put('proj/sub/later.md', 'later')).json;
    expect((await b.get(`/v0/artifacts/${ids['proj/a.md']}`)).status).toBe(200);
    expect((await b.get(`/v0/artifacts/${ids['proj/sub/b.md']}`)).status).toBe(200);
    expect((await b.get(`/v0/artifacts/${later.art_id}/download`)).bytes.toString()).toBe('later');
    expect((await b.get(`/v0/artifacts/${ids['proj/secret/s.md']}`)).status).toBe(404);
    expect((await b.get(`/v0/artifacts/${ids['other/o.md']}`)).status).toBe(404);
    expect((await b.get(`/v0/folders/${proj.fld_id}`)).json).toMatchObject({ fld_id: proj.fld_id, path: '/proj/' });
    expect((await b.get(`/v0/folders/${secret.fld_id}`)).status).toBe(404);

    const listed = await b.get(`/v0/artifacts?folder=${proj.fld_id}`);
    expect(listed.status).toBe(200);
    expect(listed.json.items.map((i: any) => i.path)).toEqual(['proj/a.md', 'proj/sub/b.md', 'proj/sub/later.md']);
    expect((await b.get(`/v0/artifacts?folder=${proj.fld_id}&prefix=sub/`)).json.items).toHaveLength(2);
    expect((await b.get(`/v0/artifacts?folder=${secret.fld_id}`)).status).toBe(404);
    // The owner lists its own folder in full.
    expect((await a.get(`/v0/artifacts?folder=${proj.fld_id}`)).json.items).toHaveLength(4);
    // A direct grant on the opted-out folder still works.
    await grant(a, secret.fld_id, { type: 'user', email: b.email }, 'viewer');
    expect((await b.get(`/v0/artifacts/${ids['proj/secret/s.md']}`)).status).toBe(200);
    // Moving an artifact out of the folder takes it out of the grant.
    await a.call('PATCH', `/v0/artifacts/${ids['proj/a.md']}`, { json: { path: 'other/a.md' } });
    expect((await b.get(`/v0/artifacts/${ids['proj/a.md']}`)).status).toBe(404);
    // A viewer of the folder cannot manage it.
    expect((await b.call('DELETE', `/v0/folders/${proj.fld_id}?recursive=true`)).status).toBe(403);
  });

  it('a soft-deleted owner drive hides its grants; a purged artifact takes its grants along', async () => {
    const { api, b } = p;
    const { driveClient } = await import('../artifacts/client.js');
    const owner = await driveClient(api);
    const art = (await owner.put('d/x.md', 'x')).json;
    const g = await grant(owner, art.art_id, { type: 'user', email: b.email }, 'viewer');
    expect((await b.get(`/v0/artifacts/${art.art_id}`)).status).toBe(200);
    await api.ctx.orm.em
      .fork()
      .execute(`update drives set deleted_at = now(), purge_at = now() + interval '1 day' where id = ?`, [
        owner.driveId,
      ]);
    expect((await b.get(`/v0/artifacts/${art.art_id}`)).status).toBe(404);
    await api.ctx.orm.em
      .fork()
      .execute(`update drives set deleted_at = null, purge_at = null where id = ?`, [owner.driveId]);
    expect((await b.get(`/v0/artifacts/${art.art_id}`)).status).toBe(200);
    await api.ctx.orm.em.fork().execute(`delete from artifacts where id = ?`, [art.art_id]);
    expect(await api.ctx.orm.em.fork().execute(`select id from grants where id = ?`, [g.json.id])).toEqual([]);
  });
});
