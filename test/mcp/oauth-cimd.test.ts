import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { DOCUMENT_REFUSED, freshnessS } from '../../src/identity/client-metadata.js';
import { loadConfig } from '../../src/lib/config.js';
import { startIdentityApi, uniqueEmail, WebClient } from '../identity/helpers.js';
import { authorizeQuery, pkce, postForm } from './oauth-helpers.js';
import { startMetadataHost, type MetadataHost, type Published } from './oauth-client-fixtures.js';

/**
 * Client ID metadata documents (issue 36): what /authorize and the token endpoint refuse, each with its reason on the
 * page (a bad client is never redirected to), how the document is cached, and what the metadata advertises.
 */
let api: TestApi;
let host: MetadataHost;
let web: WebClient;
const REDIRECT = 'http://127.0.0.1:33418/callback';

beforeAll(async () => {
  api = await startIdentityApi();
  host = await startMetadataHost();
  web = new WebClient(api.url);
  await web.signUp(uniqueEmail('cimd'));
});
afterAll(async () => {
  await host?.close();
  await api?.close();
});

const doc = (url: string, extra: Record<string, unknown> = {}) => ({
  client_id: url,
  client_name: 'Fixture Client',
  redirect_uris: [REDIRECT],
  ...extra,
});

/** The authorization page for a client_id, as the signed-in browser gets it. */
const authorize = (clientId: string, extra: Record<string, string> = {}) =>
  web.get(`/oauth2/authorize?${authorizeQuery(clientId, pkce().challenge, extra)}`);

/** The refusal as the page states it. */
const refusal = (body: string) => /<p class="error" role="alert">([^<]*)<\/p>/.exec(body)?.[1];

describe('client ID metadata documents', () => {
  it('are advertised, and a valid one shows the consent page', async () => {
    const as = await (await fetch(`${api.url}/.well-known/oauth-authorization-server`)).json();
    expect(as.client_id_metadata_document_supported).toBe(true);
    const id = host.publish('/ok.json', (url) => ({ body: doc(url) }));
    const page = await authorize(id);
    expect(page.res.status, page.body).toBe(200);
    expect(page.body).toContain('Fixture Client');
    expect(page.res.headers.get('content-security-policy')).toContain("form-action 'self' http://127.0.0.1:33418;");
  });

  it('refuses, on the page and never by redirect, each bad document or address', async () => {
    const cases: [string, string, RegExp][] = [
      [
        host.publish('/other-redirect.json', (url) => ({
          body: doc(url, { redirect_uris: ['https://app.example/cb'] }),
        })),
        'a redirect_uri the document does not list',
        /redirect_uri is not registered for this client/,
      ],
      [
        host.publish('/wrong-id.json', () => ({ body: doc(`${host.base}/someone-else.json`) })),
        'a client_id other than its URL',
        /its client_id differs from the URL it was fetched from/,
      ],
      [
        host.publish('/large.json', (url) => ({ body: doc(url, { padding: 'x'.repeat(6000) }) })),
        'an oversized document',
        /larger than 5120 bytes/,
      ],
      [
        host.publish('/large-chunked.json', (url) => ({
          body: doc(url, { padding: 'x'.repeat(6000) }),
          chunked: true,
        })),
        'an oversized document without Content-Length',
        /larger than 5120 bytes/,
      ],
      ['https://10.1.2.3/client.json', 'a private address', /10\.1\.2\.3 resolves to a private or reserved address/],
      [
        'https://169.254.169.254/latest/client.json',
        'the cloud metadata address',
        /resolves to a link-local or metadata address/,
      ],
      ['http://app.example/client.json', 'plain http off loopback', /client_id must be an https URL/],
      [`${host.base}/`, 'a URL without a path', /client_id must have a path/],
      [
        host.publish('/secret.json', (url) => ({ body: doc(url, { client_secret: 's' }) })),
        'a secret',
        /only public clients/,
      ],
      [
        host.publish('/moved.json', () => ({ status: 302, headers: { location: '/ok.json' }, body: '' })),
        'a redirect',
        /answered HTTP 302; redirects are not followed/,
      ],
      [
        host.publish('/html.json', () => ({ headers: { 'content-type': 'text/html' }, body: '<p>hi</p>' })),
        'HTML',
        /not served as application\/json/,
      ],
      [`${host.base}/missing.json`, 'a missing document', /answered HTTP 404/],
    ];
    // What the network or the document said is logged, never shown (issue 54: the refusal must be no oracle); the
    // rules of the URL itself and of the request are said on the page.
    const said = (why: RegExp) =>
      /redirect_uri is not registered|must be an https URL|must have a path/.test(why.source);
    const warn = vi.spyOn(api.ctx.logger, 'warn');
    try {
      for (const [clientId, what, reason] of cases) {
        warn.mockClear();
        const page = await authorize(clientId);
        expect(page.res.status, what).toBe(400);
        expect(page.res.headers.get('location'), what).toBeNull();
        if (said(reason)) expect(refusal(page.body), what).toMatch(reason);
        else {
          expect(refusal(page.body), what).toBe(`This sign-in link is not valid: ${DOCUMENT_REFUSED}.`);
          const logged = warn.mock.calls.map(([fields]) => (fields as { reason?: string }).reason).join(' ');
          expect(logged, what).toMatch(reason);
        }
      }
    } finally {
      warn.mockRestore();
    }
  });

  it('is cached by its HTTP headers, and the token endpoint holds the client to its current document', async () => {
    let published: Published['body'] = undefined;
    let cacheControl = 'no-store';
    const id = host.publish('/live.json', () => ({ headers: { 'cache-control': cacheControl }, body: published }));
    published = doc(id);
    // no-store: every use fetches it again.
    expect((await authorize(id)).res.status).toBe(200);
    expect((await authorize(id)).res.status).toBe(200);
    expect(host.hits('/live.json')).toBe(2);
    expect(host.lastHeaders('/live.json')?.accept).toBe('application/json');

    // A code issued while the document listed the redirect URI; the document then drops it.
    const { verifier, challenge } = pkce();
    const q = authorizeQuery(id, challenge, { state: 's' });
    const page = await web.get(`/oauth2/authorize?${q}`);
    const approved = await web.post('/oauth2/authorize', {
      ...Object.fromEntries(q),
      csrf: WebClient.csrfOf(page.body),
      decision: 'create',
    });
    expect(approved.res.status, approved.body).toBe(303);
    const code = new URL(approved.res.headers.get('location')!).searchParams.get('code')!;
    published = doc(id, { redirect_uris: ['https://app.example/cb'] });
    const exchange = await postForm(api, '/oauth2/token', {
      grant_type: 'authorization_code',
      code,
      client_id: id,
      redirect_uri: REDIRECT,
      code_verifier: verifier,
    });
    expect(await exchange.json()).toEqual({
      error: 'invalid_grant',
      error_description: "the client's metadata document no longer lists the redirect_uri",
    });
    // A refresh token nobody was issued: no fetch at all (issue 54), the token is simply unknown.
    const before = host.hits('/live.json');
    const refused = await postForm(api, '/oauth2/token', {
      grant_type: 'refresh_token',
      refresh_token: 'adrt_whatever',
      client_id: id,
    });
    expect([refused.status, (await refused.json()).error]).toEqual([400, 'invalid_grant']);
    expect(host.hits('/live.json')).toBe(before);

    // max-age: kept; the next uses within it fetch nothing.
    cacheControl = 'max-age=120';
    const cached = host.publish('/cached.json', (url) => ({
      headers: { 'cache-control': cacheControl },
      body: doc(url),
    }));
    for (let i = 0; i < 3; i++) expect((await authorize(cached)).res.status).toBe(200);
    expect(host.hits('/cached.json')).toBe(1);
  });

  it('without the test flag: https only, no loopback; fetches without a credential count per client IP', async () => {
    expect(() => loadConfig({ NODE_ENV: 'production', OAUTH_CIMD_ALLOW_HTTP_LOOPBACK: 'true' })).toThrow(
      /OAUTH_CIMD_ALLOW_HTTP_LOOPBACK: for tests only/,
    );
    const strict = await startTestApi({ OAUTH_CIMD_ALLOW_HTTP_LOOPBACK: 'false', REGISTRATIONS_PER_IP_PER_HOUR: '2' });
    try {
      // A client address of its own, so no other suite's registrations count here.
      const visitor = new WebClient(strict.url, { 'x-forwarded-for': '203.0.113.77' });
      const ask = (clientId: string) => visitor.get(`/oauth2/authorize?${authorizeQuery(clientId, pkce().challenge)}`);
      const plain = await ask(host.publish('/strict.json', (url) => ({ body: doc(url) })));
      expect(refusal(plain.body)).toMatch(/client_id must be an https URL/);
      const loop = await ask('https://127.0.0.1/client.json');
      expect(refusal(loop.body)).toBe(`This sign-in link is not valid: ${DOCUMENT_REFUSED}.`);
      // A URL refused as such costs nothing; each fetch attempt counts (refused by its address too): the limit is 2.
      expect((await ask('https://10.9.9.9/client.json')).res.status).toBe(400);
      const third = await ask('https://10.9.9.9/other.json');
      expect(third.res.status).toBe(429);
      expect(third.res.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(refusal(third.body)).toMatch(/too many client registrations from this address/);
    } finally {
      await strict.close();
    }
  });

  it('the token endpoint fetches no document that no live code or grant names; fetches are capped per process', async () => {
    // Issue 54, finding 2: 30 fresh ids at the token endpoint, without a credential, made 30 fetches.
    const ids = Array.from({ length: 30 }, (_, i) => host.publish(`/probe-${i}.json`, (url) => ({ body: doc(url) })));
    const answers = await Promise.all(
      ids.map(async (client_id, i) => {
        const fields: Record<string, string> =
          i % 2
            ? { grant_type: 'refresh_token', refresh_token: `adrt_probe${i}`, client_id }
            : { grant_type: 'authorization_code', code: `adac_probe${i}`, client_id, code_verifier: 'v'.repeat(43) };
        const res = await postForm(api, '/oauth2/token', fields);
        return [res.status, ((await res.json()) as { error: string }).error];
      }),
    );
    expect(new Set(answers.map((a) => a.join(' ')))).toEqual(new Set(['400 invalid_grant']));
    expect(ids.reduce((n, _, i) => n + host.hits(`/probe-${i}.json`), 0)).toBe(0);

    // Whoever asks, from however many addresses: OAUTH_CIMD_FETCHES_PER_MINUTE fetches a minute per process.
    const capped = await startIdentityApi({ OAUTH_CIMD_FETCHES_PER_MINUTE: '3' });
    try {
      const visitor = new WebClient(capped.url);
      await visitor.signUp(uniqueEmail('cimd-cap'));
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) {
        const id = host.publish(`/cap-${i}.json`, (url) => ({
          headers: { 'cache-control': 'no-store' },
          body: doc(url),
        }));
        visitor.headers['x-forwarded-for'] = `203.0.113.${100 + i}`;
        statuses.push((await visitor.get(`/oauth2/authorize?${authorizeQuery(id, pkce().challenge)}`)).res.status);
      }
      expect(statuses).toEqual([200, 200, 200, 429, 429]);
      expect([3, 4].map((i) => host.hits(`/cap-${i}.json`))).toEqual([0, 0]);
    } finally {
      await capped.close();
    }
  });

  it('reads freshness from Cache-Control, Expires and Age, within a cap', () => {
    const now = Date.parse('2026-11-27T10:00:00Z');
    expect(freshnessS({ 'cache-control': 'public, max-age=600' }, now)).toBe(600);
    expect(freshnessS({ 'cache-control': 'max-age=600', age: '100' }, now)).toBe(500);
    expect(freshnessS({ 'cache-control': 's-maxage=60, max-age=600' }, now)).toBe(60);
    expect(freshnessS({ 'cache-control': 'no-cache, max-age=600' }, now)).toBe(0);
    expect(freshnessS({ 'cache-control': 'max-age=31536000' }, now)).toBe(86400);
    expect(freshnessS({ expires: 'Fri, 27 Nov 2026 10:30:00 GMT', date: 'Fri, 27 Nov 2026 10:00:00 GMT' }, now)).toBe(
      1800,
    );
    expect(freshnessS({ expires: 'not a date' }, now)).toBe(0);
    expect(freshnessS({}, now)).toBe(300);
  });

  it('dynamic registration keeps working beside them', async () => {
    const res = await fetch(`${api.url}/oauth2/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: [REDIRECT] }),
    });
    const { client_id } = (await res.json()) as { client_id: string };
    expect(client_id).toMatch(/^mcpc_/);
    expect((await authorize(client_id)).res.status).toBe(200);
  });
});
