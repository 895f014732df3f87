import { describe, expect, it } from 'vitest';
import { useParties, type Parties } from './helpers.js';

let p: Parties;
useParties((parties) => (p = parties));

describe('visibility is an anyone:viewer grant', () => {
  it('public on upload creates the grant (any credential reads by id); private revokes it; the grants API agrees', async () => {
    const { a, x } = p;
    const pub = await a.put('v/pub.md', 'public!', { 'x-drive-visibility': 'public' });
    expect(pub.json.visibility).toBe('public');
    const grants = (await a.get(`/v0/grants?resource=${pub.json.art_id}`)).json.items;
    expect(grants).toMatchObject([{ principal_type: 'anyone', role: 'viewer', expires_at: null }]);
    expect((await x.get(`/v0/artifacts/${pub.json.art_id}/download`)).bytes.toString()).toBe('public!');
    // Overwrite without the header keeps it public.
    expect((await a.put('v/pub.md', 'again')).json.visibility).toBe('public');

    const priv = await a.put('v/pub.md', 'private now', { 'x-drive-visibility': 'private' });
    expect(priv.json.visibility).toBe('private');
    expect((await x.get(`/v0/artifacts/${pub.json.art_id}`)).status).toBe(404);
    expect((await a.get(`/v0/grants?resource=${pub.json.art_id}`)).json.items).toEqual([]);

    // Through the grants API: an anyone grant makes it public, revoking it private again.
    const g = await a.call('POST', '/v0/grants', {
      json: { resource: pub.json.art_id, principal: { type: 'anyone' }, role: 'viewer' },
    });
    expect((await a.get(`/v0/artifacts/${pub.json.art_id}`)).json.visibility).toBe('public');
    expect((await x.get(`/v0/artifacts/${pub.json.art_id}`)).status).toBe(200);
    // The public cannot revoke the public grant (it is not "its own").
    expect((await x.call('DELETE', `/v0/grants/${g.json.id}`)).status).toBe(403);
    await a.call('DELETE', `/v0/grants/${g.json.id}`);
    expect((await a.get(`/v0/artifacts/${pub.json.art_id}`)).json.visibility).toBe('private');

    expect((await a.put('v/bad.md', 'x', { 'x-drive-visibility': 'world' })).code).toBe('BAD_VISIBILITY');
    // A copy starts private: grants are not copied.
    const pub2 = await a.put('v/two.md', 'x', { 'x-drive-visibility': 'public' });
    const copy = await a.call('POST', `/v0/artifacts/${pub2.json.art_id}/copy`, { json: { path: 'v/two-copy.md' } });
    expect(copy.json.visibility).toBe('private');
    const actions = (await a.events(`?art_id=${pub.json.art_id}`))
      .map((e: any) => e.action)
      .filter((s: string) => s.startsWith('grant.'));
    expect(actions).toEqual(['grant.revoked', 'grant.created', 'grant.revoked', 'grant.created']);
  });
});
