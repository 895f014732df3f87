import { describe, expect, it } from 'vitest';
import { redeemShare } from '../../src/sharing/shares.js';
import { AppError } from '../../src/lib/errors.js';
import { grant, useParties, type Parties } from './helpers.js';

let p: Parties;
useParties((parties) => (p = parties));

const codeOf = async (fn: () => Promise<unknown>) => {
  try {
    await fn();
    return 'ok';
  } catch (err) {
    if (err instanceof AppError) return err.code;
    throw err;
  }
};

describe('share links', () => {
  it('mint returns the key once; list shows no key; redeem gives exactly the role on exactly the resource; rotate and revoke kill the key at once', async () => {
    const { api, a, x } = p;
    const art = (await a.put('s1/page.md', 'shared')).json;
    const mint = await a.call('POST', '/v0/shares', {
      json: { resource: art.art_id },
      headers: { 'x-drive-actor': 'owner' },
    });
    expect(mint.status, JSON.stringify(mint.json)).toBe(201);
    expect(mint.json).toMatchObject({
      resource_type: 'artifact',
      resource_id: art.art_id,
      role: 'viewer',
      has_password: false,
      access_count: 0,
      expires_at: null,
    });
    expect(mint.json.share_key).toMatch(/^shk_/);
    expect(mint.json.url).toBe(`${api.ctx.config.http.webUrl}/s/${mint.json.share_key}`);
    const key1 = mint.json.share_key;

    const redeemed = await redeemShare(api.ctx, key1);
    expect(redeemed).toMatchObject({ role: 'viewer', driveId: a.driveId });
    expect(redeemed.artifact?.id).toBe(art.art_id);
    expect(redeemed.folder).toBeUndefined();

    const list = await a.get(`/v0/shares?resource=${art.art_id}`);
    expect(list.json.items).toHaveLength(1);
    expect(list.json.items[0]).toMatchObject({ id: mint.json.id, access_count: 1 });
    expect(list.json.items[0].last_accessed_at).not.toBeNull();
    expect(JSON.stringify(list.json)).not.toContain(key1);
    expect(list.json.items[0].share_key).toBeUndefined();
    // Nothing stores the key itself.
    const stored = JSON.stringify(
      await api.ctx.orm.em.fork().execute('select * from shares where id = ?', [mint.json.id]),
    );
    expect(stored).not.toContain(key1);

    const rotated = await a.call('POST', `/v0/shares/${mint.json.id}/rotate`);
    expect(rotated.status).toBe(200);
    expect(rotated.json.id).toBe(mint.json.id);
    const key2 = rotated.json.share_key;
    expect(key2).not.toBe(key1);
    expect(await codeOf(() => redeemShare(api.ctx, key1))).toBe('NOT_FOUND');
    expect((await redeemShare(api.ctx, key2)).artifact?.id).toBe(art.art_id);

    // Strangers: 404 on list, rotate, revoke.
    expect((await x.get(`/v0/shares?resource=${art.art_id}`)).status).toBe(404);
    expect((await x.call('POST', `/v0/shares/${mint.json.id}/rotate`)).status).toBe(404);
    expect((await x.call('DELETE', `/v0/shares/${mint.json.id}`)).status).toBe(404);

    const revoked = await a.call('DELETE', `/v0/shares/${mint.json.id}`);
    expect(revoked.json).toMatchObject({ ok: true, id: mint.json.id });
    expect(await codeOf(() => redeemShare(api.ctx, key2))).toBe('NOT_FOUND');
    expect((await a.get(`/v0/shares?resource=${art.art_id}`)).json.items).toEqual([]);
    expect((await a.call('POST', `/v0/shares/${mint.json.id}/rotate`)).status).toBe(404);

    const actions = (await a.events(`?art_id=${art.art_id}`))
      .map((e: any) => e.action)
      .filter((s: string) => s.startsWith('share.'));
    expect(actions).toEqual(['share.revoked', 'share.rotated', 'share.created']);
  });

  it('a link carries its own label, trimmed, and says what kind of credential made it', async () => {
    const { a } = p;
    const art = (await a.put('s1/labelled.md', 'shared')).json;
    const mint = await a.call('POST', '/v0/shares', { json: { resource: art.art_id, label: '  for the reviewers ' } });
    expect(mint.status).toBe(201);
    expect(mint.json).toMatchObject({ label: 'for the reviewers', created_by_type: 'api_key' });
    const plain = await a.call('POST', '/v0/shares', { json: { resource: art.art_id } });
    expect(plain.json.label).toBeNull();
    const listed = (await a.get(`/v0/shares?resource=${art.art_id}`)).json.items;
    expect(listed.map((s: { label: string | null }) => s.label)).toEqual(['for the reviewers', null]);
    const long = await a.call('POST', '/v0/shares', { json: { resource: art.art_id, label: 'x'.repeat(201) } });
    expect(long.status).toBe(422);
  });

  it('a password-protected link shows nothing without the password', async () => {
    const { api, a } = p;
    const art = (await a.put('s2/secret.md', 'pw')).json;
    const mint = await a.call('POST', '/v0/shares', {
      json: { resource: 's2/secret.md', role: 'editor', password: 'open sesame' },
    });
    expect(mint.json).toMatchObject({ has_password: true, role: 'editor' });
    for (const pw of [undefined, '', 'wrong']) {
      let caught: unknown;
      try {
        await redeemShare(api.ctx, mint.json.share_key, pw);
      } catch (err) {
        caught = err;
      }
      expect(caught).toBeInstanceOf(AppError);
      expect((caught as AppError).code).toBe('SHARE_PASSWORD_REQUIRED');
      expect(JSON.stringify({ ...(caught as AppError), message: (caught as AppError).message })).not.toMatch(
        /s2\/secret|art_/,
      );
    }
    const ok = await redeemShare(api.ctx, mint.json.share_key, 'open sesame');
    expect(ok).toMatchObject({ role: 'editor' });
    expect(ok.artifact?.id).toBe(art.art_id);
  });

  it('expiry, folder links, deleted resources, and who may mint', async () => {
    const { api, a, b, c } = p;
    const folder = (await a.call('POST', '/v0/folders/s3', { json: {} })).json;
    const art = (await a.put('s3/in.md', 'in')).json;
    const short = await a.call('POST', '/v0/shares', { json: { resource: folder.fld_id, expires_in: 1 } });
    expect(short.json).toMatchObject({ resource_type: 'folder', resource_id: folder.fld_id });
    expect((await redeemShare(api.ctx, short.json.share_key)).folder?.id).toBe(folder.fld_id);
    await new Promise((r) => setTimeout(r, 1300));
    expect(await codeOf(() => redeemShare(api.ctx, short.json.share_key))).toBe('NOT_FOUND');

    // A link on a trashed artifact redeems nothing.
    const onArt = await a.call('POST', '/v0/shares', { json: { resource: art.art_id } });
    await a.call('DELETE', `/v0/artifacts/${art.art_id}`);
    expect(await codeOf(() => redeemShare(api.ctx, onArt.json.share_key))).toBe('NOT_FOUND');
    expect(await codeOf(() => redeemShare(api.ctx, 'shk_not-a-key'))).toBe('NOT_FOUND');

    // can_share: an editor may mint up to editor; a viewer may not mint; a manager lists.
    const doc = (await a.put('s3/doc.md', 'd')).json;
    await grant(a, doc.art_id, { type: 'user', email: b.email }, 'editor');
    await grant(a, doc.art_id, { type: 'agent', id: c.aid }, 'viewer');
    const byEditor = await b.call('POST', '/v0/shares', { json: { resource: doc.art_id, role: 'editor' } });
    expect(byEditor.status).toBe(201);
    expect(byEditor.json.drive_id).toBe(a.driveId);
    expect((await b.call('POST', `/v0/shares/${byEditor.json.id}/rotate`)).status).toBe(200);
    expect((await b.get(`/v0/shares?resource=${doc.art_id}`)).status).toBe(403);
    expect((await b.call('DELETE', `/v0/shares/${byEditor.json.id}`)).status).toBe(403);
    expect((await c.call('POST', '/v0/shares', { json: { resource: doc.art_id } })).status).toBe(403);
    // An agent's link without expires_in gets the default lifetime; an API key's has none.
    const agentArt = (await c.put('mine.md', 'm')).json;
    const agentLink = await c.call('POST', '/v0/shares', { json: { resource: agentArt.art_id } });
    expect(agentLink.status).toBe(201);
    expect(agentLink.json.drive_id).toBe(c.driveId);
    expect(agentLink.json.expires_at).not.toBeNull();
    expect(
      (await c.call('POST', '/v0/shares', { json: { resource: agentArt.art_id, expires_in: null } })).json.expires_at,
    ).toBeNull();
  });
});
