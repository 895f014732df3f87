import { request, type IncomingHttpHeaders } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApi } from '../helpers/api.js';
import {
  bearer,
  claimThroughPages,
  startIdentityApi,
  uniqueEmail,
  WebClient,
  type Registration,
} from '../identity/helpers.js';
import { listToolsRaw, mcpClient } from './helpers.js';
import {
  authorizeQuery,
  pkce,
  postForm,
  REDIRECT,
  registerClient as registerOAuthClient,
  type Tokens,
} from './oauth-helpers.js';

/**
 * OAuth 2.1 for stock MCP clients, end to end: DCR, authorize with PKCE as the signed-in owner, exchange, tools,
 * refresh rotation and reuse, revocation.
 */
let api: TestApi;
let web: WebClient;
let reg: Registration;

beforeAll(async () => {
  api = await startIdentityApi();
  web = new WebClient(api.url);
  await web.signUp(uniqueEmail('oauth'));
  reg = await claimThroughPages(api, web);
});
afterAll(async () => {
  await api?.close();
});

const form = (path: string, fields: Record<string, string>) => postForm(api, path, fields);
const registerClient = () => registerOAuthClient(api);

async function authorize(clientId: string, challenge: string) {
  const qs = authorizeQuery(clientId, challenge, { state: 'st-1' });
  const page = await web.get(`/oauth2/authorize?${qs}`);
  expect(page.res.status, page.body).toBe(200);
  expect(page.body).toContain('Stock MCP client');
  const fields = Object.fromEntries(qs);
  const done = await web.post('/oauth2/authorize', {
    ...fields,
    csrf: WebClient.csrfOf(page.body),
    drive_id: reg.drive_id,
    decision: 'approve',
  });
  expect(done.res.status, done.body).toBe(303);
  const location = new URL(done.res.headers.get('location')!);
  expect(`${location.origin}${location.pathname}`).toBe(REDIRECT);
  expect(location.searchParams.get('state')).toBe('st-1');
  return location.searchParams.get('code')!;
}

describe('MCP OAuth', () => {
  it('publishes protected-resource and authorization-server metadata', async () => {
    const prm = await (await fetch(`${api.url}/.well-known/oauth-protected-resource/mcp`)).json();
    expect(prm).toMatchObject({ resource: `${api.url}/mcp`, authorization_servers: [api.url] });
    expect(await (await fetch(`${api.url}/.well-known/oauth-protected-resource`)).json()).toEqual(prm);
    const as = await (await fetch(`${api.url}/.well-known/oauth-authorization-server`)).json();
    expect(as).toMatchObject({
      authorization_endpoint: `${api.url}/oauth2/authorize`,
      registration_endpoint: `${api.url}/oauth2/register`,
      revocation_endpoint: `${api.url}/oauth2/revoke`,
      code_challenge_methods_supported: ['S256'],
    });
    expect(as.grant_types_supported).toEqual(expect.arrayContaining(['authorization_code', 'refresh_token']));
  });

  it('names the resource in the loopback spelling the client used, and only that', async () => {
    const port = new URL(api.url).port;
    const viaHost = (path: string, host: string, method = 'GET') =>
      new Promise<{ status: number; headers: IncomingHttpHeaders; body: string }>((resolve, reject) => {
        const req = request(`${api.url}${path}`, { method, headers: { host } }, (res) => {
          let body = '';
          res.on('data', (c: Buffer) => (body += c.toString()));
          res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
        });
        req.on('error', reject);
        req.end();
      });
    const prm = await viaHost('/.well-known/oauth-protected-resource/mcp', `localhost:${port}`);
    expect(JSON.parse(prm.body)).toMatchObject({
      resource: `http://localhost:${port}/mcp`,
      authorization_servers: [api.url],
    });
    const foreign = await viaHost('/.well-known/oauth-protected-resource/mcp', 'evil.example');
    expect(JSON.parse(foreign.body).resource).toBe(`${api.url}/mcp`);
    const challenge = await viaHost('/mcp', `localhost:${port}`, 'POST');
    expect(challenge.status).toBe(401);
    expect(challenge.headers['www-authenticate']).toBe(
      `Bearer resource_metadata="http://localhost:${port}/.well-known/oauth-protected-resource/mcp"`,
    );
  });

  it('register → authorize with PKCE → exchange → call a tool → refresh → old refresh rejected and chain revoked; /v0 refuses the token', async () => {
    const client = await registerClient();
    const { verifier, challenge } = pkce();
    const code = await authorize(client.client_id, challenge);

    const exchanged = await form('/oauth2/token', {
      grant_type: 'authorization_code',
      code,
      client_id: client.client_id,
      redirect_uri: REDIRECT,
      code_verifier: verifier,
    });
    expect(exchanged.status, await exchanged.clone().text()).toBe(200);
    const t1 = (await exchanged.json()) as Tokens;
    expect(t1).toMatchObject({ token_type: 'Bearer', scope: 'drive' });
    expect(t1.access_token).toMatch(/^adat_/);
    expect(t1.refresh_token).toMatch(/^adrt_/);

    const s1 = await mcpClient(api, t1.access_token);
    expect(await s1.ok('overview')).toMatchObject({ drive: { drive_id: reg.drive_id, claimed: true } });
    await s1.ok('upload', { path: 'oauth/hello.md', content: 'hi' });
    // The run is named by the app the person allowed (issue 55), not "mcp_oauth".
    const runs = await s1.ok<{ items: { credential_name: string | null }[] }>('runs', {});
    expect(runs.items[0].credential_name).toBe('Stock MCP client');
    await s1.close();

    // MCP-only: the same token on /v0 is refused (spec 5.2).
    const rest = await fetch(`${api.url}/v0/drives/me`, { headers: bearer(t1.access_token) });
    expect(rest.status).toBe(401);
    expect((await rest.json()).detail.error.message).toContain('only at /mcp');

    const refreshed = await form('/oauth2/token', {
      grant_type: 'refresh_token',
      refresh_token: t1.refresh_token,
      client_id: client.client_id,
    });
    expect(refreshed.status, await refreshed.clone().text()).toBe(200);
    const t2 = (await refreshed.json()) as Tokens;
    expect(t2.refresh_token).not.toBe(t1.refresh_token);
    const s2 = await mcpClient(api, t2.access_token);
    expect(await s2.ok('lookup', { ref: 'oauth/hello.md' })).toMatchObject({ kind: 'artifact' });
    await s2.close();

    // Reusing the spent refresh token is rejected and revokes the whole chain.
    const reused = await form('/oauth2/token', {
      grant_type: 'refresh_token',
      refresh_token: t1.refresh_token,
      client_id: client.client_id,
    });
    expect(reused.status).toBe(400);
    expect((await reused.json()).error).toBe('invalid_grant');
    const afterReuse = await listToolsRaw(api, t2.access_token);
    expect(afterReuse.status).toBe(401);
    expect(afterReuse.headers.get('www-authenticate')).toContain('resource_metadata=');
    const t2refresh = await form('/oauth2/token', {
      grant_type: 'refresh_token',
      refresh_token: t2.refresh_token,
      client_id: client.client_id,
    });
    expect((await t2refresh.json()).error).toBe('invalid_grant');
  });

  it('a failed exchange spends the code: a wrong PKCE verifier (or client) first, and the right one is refused after', async () => {
    const client = await registerClient();
    const { verifier, challenge } = pkce();
    const code = await authorize(client.client_id, challenge);
    const badVerifier = await form('/oauth2/token', {
      grant_type: 'authorization_code',
      code,
      client_id: client.client_id,
      redirect_uri: REDIRECT,
      code_verifier: pkce().verifier,
    });
    expect(badVerifier.status).toBe(400);
    expect((await badVerifier.json()).error).toBe('invalid_grant');
    const late = await form('/oauth2/token', {
      grant_type: 'authorization_code',
      code,
      client_id: client.client_id,
      redirect_uri: REDIRECT,
      code_verifier: verifier,
    });
    expect(late.status).toBe(400);
    expect(await late.json()).toEqual({
      error: 'invalid_grant',
      error_description: expect.stringMatching(/already used/),
    });

    const other = await registerClient();
    const second = pkce();
    const code2 = await authorize(client.client_id, second.challenge);
    const wrongClient = await form('/oauth2/token', {
      grant_type: 'authorization_code',
      code: code2,
      client_id: other.client_id,
      code_verifier: second.verifier,
    });
    expect((await wrongClient.json()).error).toBe('invalid_grant');
    const after = await form('/oauth2/token', {
      grant_type: 'authorization_code',
      code: code2,
      client_id: client.client_id,
      code_verifier: second.verifier,
    });
    expect((await after.json()).error).toBe('invalid_grant');
  });

  it('a used code presented again revokes every token it issued (RFC 6749 4.1.2)', async () => {
    const client = await registerClient();
    const { verifier, challenge } = pkce();
    const code = await authorize(client.client_id, challenge);
    const exchange = () =>
      form('/oauth2/token', {
        grant_type: 'authorization_code',
        code,
        client_id: client.client_id,
        redirect_uri: REDIRECT,
        code_verifier: verifier,
      });
    const t = (await (await exchange()).json()) as Tokens;
    const listTools = (token: string) =>
      fetch(`${api.url}/mcp`, {
        method: 'POST',
        headers: {
          ...bearer(token),
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
    expect((await listTools(t.access_token)).status).toBe(200);
    const refreshed = (await (
      await form('/oauth2/token', {
        grant_type: 'refresh_token',
        refresh_token: t.refresh_token,
        client_id: client.client_id,
      })
    ).json()) as Tokens;
    expect((await listTools(refreshed.access_token)).status).toBe(200);

    const replay = await exchange();
    expect(replay.status).toBe(400);
    expect((await replay.json()).error).toBe('invalid_grant');
    // The whole chain the code started is gone: the first pair and the refreshed one.
    expect((await listTools(t.access_token)).status).toBe(401);
    expect((await listTools(refreshed.access_token)).status).toBe(401);
    const again = await form('/oauth2/token', {
      grant_type: 'refresh_token',
      refresh_token: refreshed.refresh_token,
      client_id: client.client_id,
    });
    expect((await again.json()).error).toBe('invalid_grant');
  });

  it('revocation (RFC 7009) of a refresh token ends the chain; unknown tokens are fine', async () => {
    const client = await registerClient();
    const { verifier, challenge } = pkce();
    const code = await authorize(client.client_id, challenge);
    const t = (await (
      await form('/oauth2/token', {
        grant_type: 'authorization_code',
        code,
        client_id: client.client_id,
        code_verifier: verifier,
      })
    ).json()) as Tokens;
    expect((await form('/oauth2/revoke', { token: t.refresh_token, client_id: client.client_id })).status).toBe(200);
    const res = await fetch(`${api.url}/mcp`, {
      method: 'POST',
      headers: {
        ...bearer(t.access_token),
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(res.status).toBe(401);
    expect((await form('/oauth2/revoke', { token: 'adrt_unknown' })).status).toBe(200);
  });

  it('the consent page needs a session, PKCE, a registered redirect URI and a valid CSRF token', async () => {
    const client = await registerClient();
    const { challenge } = pkce();
    const qs = authorizeQuery(client.client_id, challenge);
    const anonymous = await new WebClient(api.url).get(`/oauth2/authorize?${qs}`);
    expect(anonymous.res.status).toBe(303);
    expect(anonymous.res.headers.get('location')).toMatch(/^\/auth\/login\?return_to=/);
    const noPkce = new URLSearchParams(qs);
    noPkce.delete('code_challenge');
    expect((await web.get(`/oauth2/authorize?${noPkce}`)).res.status).toBe(400);
    const otherRedirect = new URLSearchParams(qs);
    otherRedirect.set('redirect_uri', 'https://evil.example/cb');
    expect((await web.get(`/oauth2/authorize?${otherRedirect}`)).res.status).toBe(400);
    const forged = await web.post('/oauth2/authorize', {
      ...Object.fromEntries(qs),
      csrf: 'forged',
      drive_id: reg.drive_id,
      decision: 'approve',
    });
    expect(forged.res.status).toBe(403);
    const page = await web.get(`/oauth2/authorize?${qs}`);
    const denied = await web.post('/oauth2/authorize', {
      ...Object.fromEntries(qs),
      csrf: WebClient.csrfOf(page.body),
      drive_id: reg.drive_id,
      decision: 'deny',
    });
    expect(new URL(denied.res.headers.get('location')!).searchParams.get('error')).toBe('access_denied');
    const bad = await fetch(`${api.url}/oauth2/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: ['http://evil.example/cb'] }),
    });
    expect([bad.status, (await bad.json()).error]).toEqual([400, 'invalid_redirect_uri']);
  });

  it('accepts only https, loopback http and app schemes with a valid host, and names exactly that origin in form-action', async () => {
    // Issue 54, finding 9: an odd host was accepted and the consent page's form-action then allowed any host.
    const registered = async (uri: string) => {
      const res = await fetch(`${api.url}/oauth2/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_name: 'Stock MCP client', redirect_uris: [uri] }),
      });
      return res.status === 201 ? ((await res.json()) as { client_id: string }).client_id : res.status;
    };
    for (const odd of [
      'https://app_x.example/cb',
      'https://a..example/cb',
      'https://[2001:db8::1]/cb',
      'https://user:pw@app.example/cb',
      'http://app.example/cb',
      'wss://app.example/cb',
      'myapp://a_b/cb',
      'javascript://app.example/%0aalert(1)',
    ])
      expect([odd, await registered(odd)]).toEqual([odd, 400]);

    for (const [uri, source] of [
      ['https://app.example:8443/oauth/cb?x=1', 'https://app.example:8443'],
      ['http://localhost:7777/cb', 'http://localhost:7777'],
      ['com.example.app:/oauth2redirect', 'com.example.app:'],
      ['cursor://anysphere.cursor-mcp/oauth/callback', 'cursor:'],
    ]) {
      const clientId = await registered(uri);
      expect(typeof clientId, uri).toBe('string');
      const qs = authorizeQuery(clientId as string, pkce().challenge, { redirect_uri: uri });
      const page = await web.get(`/oauth2/authorize?${qs}`);
      expect(page.res.status, page.body).toBe(200);
      const csp = page.res.headers.get('content-security-policy')!;
      expect(/form-action ([^;]*);/.exec(csp)?.[1], uri).toBe(`'self' ${source}`);
    }
  });
});
