import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApi } from '../helpers/api.js';
import { bearer, startIdentityApi, uniqueEmail, WebClient } from '../identity/helpers.js';
import { mcpClient } from './helpers.js';
import { authorizeQuery, pkce, postForm, REDIRECT, registerClient, type Tokens } from './oauth-helpers.js';

/**
 * OAuth that never strands a person (issue 26): someone with no drive creates one on the consent page and the client
 * gets its code; authorize sends a bad scope or resource back to the client; 401s say invalid_token; the MCP-only
 * token reads binaries without any /v0 credential.
 */
let api: TestApi;
let web: WebClient;

beforeAll(async () => {
  // A small embed cap: an MCP-only client gets one binary embedded and a larger one by signed URL.
  api = await startIdentityApi({ MCP_EMBED_MAX_BYTES: '64' });
  web = new WebClient(api.url);
  await web.signUp(uniqueEmail('consent'));
});
afterAll(async () => {
  await api?.close();
});

const form = (path: string, fields: Record<string, string>) => postForm(api, path, fields);

describe('MCP OAuth consent', () => {
  it('a signed-in person with no drive creates one on the consent page and the client gets its code', async () => {
    const client = await registerClient(api);
    const { verifier, challenge } = pkce();
    const fresh = new WebClient(api.url);
    await fresh.signUp(uniqueEmail('nodrive'));
    const qs = authorizeQuery(client.client_id, challenge, {
      state: 'st-new',
      scope: 'drive',
      resource: `${api.url}/mcp`,
    });
    const page = await fresh.get(`/oauth2/authorize?${qs}`);
    expect(page.res.status, page.body).toBe(200);
    expect(page.body).toContain('Create a drive and allow');
    // Deny goes back to the client too (it never waits for a callback that does not come).
    const denied = await fresh.post('/oauth2/authorize', {
      ...Object.fromEntries(qs),
      csrf: WebClient.csrfOf(page.body),
      decision: 'deny',
    });
    expect(new URL(denied.res.headers.get('location')!).searchParams.get('error')).toBe('access_denied');
    const created = await fresh.post('/oauth2/authorize', {
      ...Object.fromEntries(qs),
      csrf: WebClient.csrfOf(page.body),
      decision: 'create',
    });
    expect(created.res.status, created.body).toBe(303);
    const location = new URL(created.res.headers.get('location')!);
    expect(`${location.origin}${location.pathname}`).toBe(REDIRECT);
    expect(location.searchParams.get('state')).toBe('st-new');
    const t = (await (
      await form('/oauth2/token', {
        grant_type: 'authorization_code',
        code: location.searchParams.get('code')!,
        client_id: client.client_id,
        redirect_uri: REDIRECT,
        code_verifier: verifier,
      })
    ).json()) as Tokens;
    const s = await mcpClient(api, t.access_token);
    const o = await s.ok<{ drive: { drive_id: string; claimed: boolean } }>('overview');
    expect(o.drive.claimed).toBe(true);

    // Connected apps are the person's own: another account sees none of them and cannot disconnect them.
    const apps = await fresh.get('/settings/apps');
    const grantId = /\/settings\/apps\/([^/"]+)\/disconnect/.exec(apps.body)![1];
    const stranger = new WebClient(api.url);
    await stranger.signUp(uniqueEmail('stranger'));
    const theirs = await stranger.get('/settings/apps');
    expect(theirs.body).toContain('No app is connected.');
    const refused = await stranger.post(`/settings/apps/${grantId}/disconnect`, {
      csrf: WebClient.csrfOf((await stranger.get('/dashboard')).body),
    });
    expect(refused.res.status).toBe(404);
    expect((await s.ok<{ drive: { drive_id: string } }>('overview')).drive.drive_id).toBe(o.drive.drive_id);
    // An MCP-only token opens no /v0 URL: binaries come embedded, or as a signed URL that needs no credential.
    const small = Buffer.from([1, 2, 3, 255]);
    const large = Buffer.alloc(300, 9);
    for (const [path, bytes] of [
      ['bin/small.bin', small],
      ['bin/large.bin', large],
    ] as const)
      await s.ok('upload', { path, content: bytes.toString('base64'), encoding: 'base64' });
    const embedded = await s.raw('read', { ref: 'bin/small.bin' });
    expect(embedded.content[1]).toMatchObject({ type: 'resource', resource: { blob: small.toString('base64') } });
    const signed = await s.ok<{ download: { url: string } }>('read', { ref: 'bin/large.bin' });
    const got = await fetch(signed.download.url);
    expect(Buffer.from(await got.arrayBuffer()).equals(large)).toBe(true);
    await s.close();
    // The next consent offers the drive it now owns.
    expect((await fresh.get(`/oauth2/authorize?${qs}`)).body).toContain(o.drive.drive_id);
  });

  it('authorize refuses an unknown scope and a foreign resource by redirecting back; 401s say invalid_token', async () => {
    const client = await registerClient(api);
    const { challenge } = pkce();
    const ask = (extra: Record<string, string>) =>
      web.get(`/oauth2/authorize?${authorizeQuery(client.client_id, challenge, { state: 'st-x', ...extra })}`);
    for (const [extra, error] of [
      [{ scope: 'drive admin' }, 'invalid_scope'],
      [{ resource: 'https://other.example/mcp' }, 'invalid_target'],
    ] as const) {
      const r = await ask(extra);
      expect(r.res.status, JSON.stringify(extra)).toBe(303);
      const back = new URL(r.res.headers.get('location')!);
      expect(`${back.origin}${back.pathname}`).toBe(REDIRECT);
      expect(back.searchParams.get('error')).toBe(error);
      expect(back.searchParams.get('state')).toBe('st-x');
    }
    expect((await ask({ scope: 'drive', resource: `${api.url}/mcp` })).res.status).toBe(200);
    // The loopback spelling the protected-resource metadata gave a client that connected by it.
    const other = `http://localhost:${new URL(api.url).port}/mcp`;
    expect((await ask({ resource: other })).res.status).toBe(200);
    const res = await fetch(`${api.url}/mcp`, {
      method: 'POST',
      headers: { ...bearer('adat_revoked-or-unknown'), 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer resource_metadata="[^"]+", error="invalid_token"/);
  });
});
