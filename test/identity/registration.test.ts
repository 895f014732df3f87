import { generateKeyPairSync } from 'node:crypto';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApi } from '../helpers/api.js';
import { startTestApi } from '../helpers/api.js';
import { createTenant } from '../helpers/tenant.js';
import { listApiKeys, revokeApiKey } from '../../src/identity/api-keys.js';
import {
  accessTokenFor,
  bearer,
  expectNoNewRows,
  JWT_BEARER,
  registerAnonymous,
  startIdentityApi,
  tokenRequest,
} from './helpers.js';

let api: TestApi;
beforeAll(async () => {
  api = await startIdentityApi();
});
afterAll(async () => api?.close());

describe('discovery', () => {
  it('publishes RFC 8414 metadata with the agent_auth block', async () => {
    const res = await fetch(`${api.url}/.well-known/oauth-authorization-server`);
    expect(res.status).toBe(200);
    const meta = await res.json();
    expect(meta.issuer).toBe(api.url);
    expect(meta.token_endpoint).toBe(`${api.url}/oauth2/token`);
    expect(meta.grant_types_supported).toEqual(expect.arrayContaining([JWT_BEARER, 'claim']));
    expect(meta.agent_auth.identity_endpoint).toBe(`${api.url}/agent/identity`);
    expect(meta.agent_auth.claim_endpoint).toBe(`${api.url}/agent/identity/claim`);
  });
});

describe('anonymous registration and the jwt-bearer grant', () => {
  it('creates an unclaimed drive with a 30-day pre_claim assertion and a claim token', async () => {
    const reg = await registerAnonymous(api);
    expect(reg.drive_id).toMatch(/^drv_[0-9a-z]{26}$/);
    expect(reg.agent_identity_id).toMatch(/^aid_[0-9a-z]{26}$/);
    expect(reg.claim_token).toMatch(/^ad_claim_/);
    expect(reg.claim_metadata.claim_endpoint).toBe(`${api.url}/agent/identity/claim`);
    const claims = decodeJwt(reg.identity_assertion);
    expect(claims.scope).toBe('pre_claim');
    expect(claims.sub).toBe(reg.agent_identity_id);
    expect(claims.exp! - claims.iat!).toBe(30 * 24 * 3600);
    expect(Math.abs(Date.parse(reg.expires_at) / 1000 - claims.exp!)).toBeLessThanOrEqual(1);

    // The claim token is stored hashed only.
    const rows = await api.ctx.orm.em
      .fork()
      .execute('select claim_token_hash from agent_identities where id = ?', [reg.agent_identity_id]);
    expect(rows[0].claim_token_hash).not.toContain(reg.claim_token);
    expect(rows[0].claim_token_hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('exchanges the assertion for a 15-minute access token that works on /v0 and resets the inactivity clock', async () => {
    const reg = await registerAnonymous(api);
    const em = api.ctx.orm.em.fork();
    await em.execute(`update drives set last_activity_at = now() - interval '1 hour' where id = ?`, [reg.drive_id]);
    const res = await tokenRequest(api, { grant_type: JWT_BEARER, assertion: reg.identity_assertion });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const body = await res.json();
    expect(body).toMatchObject({ token_type: 'Bearer', expires_in: 900, scope: 'pre_claim' });
    const [row] = await em.execute(
      `select extract(epoch from now() - last_activity_at) as age from drives where id = ?`,
      [reg.drive_id],
    );
    expect(Number(row.age)).toBeLessThan(60);

    const me = await fetch(`${api.url}/v0/drives/me`, { headers: bearer(body.access_token) });
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({
      drive_id: reg.drive_id,
      email: null,
      claimed: false,
      scope: 'pre_claim',
      organization_id: null,
    });
  });

  it('refuses the identity assertion itself on /v0', async () => {
    const reg = await registerAnonymous(api);
    const res = await fetch(`${api.url}/v0/drives/me`, { headers: bearer(reg.identity_assertion) });
    expect(res.status).toBe(401);
    const body = await res.json();
    expect(body.detail.error.code).toBe('UNAUTHENTICATED');
    expect(body.detail.error.message).toMatch(/identity assertions are not accepted/);
  });

  it('refuses missing, unknown and MCP-only bearer credentials on /v0 with the envelope', async () => {
    const reg = await registerAnonymous(api);
    const foreign = await startIdentityApi({ PUBLIC_BASE_URL: 'https://other-deployment.test' });
    let foreignToken: string;
    try {
      foreignToken = await accessTokenFor(foreign, (await registerAnonymous(foreign)).identity_assertion);
    } finally {
      await foreign.close();
    }
    const cases: [Record<string, string>, RegExp][] = [
      [{}, /missing bearer/],
      [{ authorization: `Basic ${Buffer.from('a:b').toString('base64')}` }, /missing bearer/],
      [bearer('adat_mcp-only-oauth-token'), /accepted only at \/mcp/],
      [bearer('ad_live_revoked-or-made-up'), /invalid or revoked API key/],
      [bearer(`${reg.identity_assertion.split('.').slice(0, 2).join('.')}.c2ln`), /invalid access token/],
      [bearer(foreignToken!), /invalid access token/], // another issuer and audience
    ];
    for (const [headers, message] of cases) {
      const res = await fetch(`${api.url}/v0/drives/me`, { headers });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Bearer');
      const err = (await res.json()).detail.error;
      expect(err.code).toBe('UNAUTHENTICATED');
      expect(err.message).toMatch(message);
    }
  });

  it('refuses an access token at the token endpoint and a forged or expired assertion with invalid_grant', async () => {
    const reg = await registerAnonymous(api);
    const access = await accessTokenFor(api, reg.identity_assertion);
    for (const assertion of [access, `${reg.identity_assertion.slice(0, -4)}AAAA`, 'not.a.jwt']) {
      const res = await tokenRequest(api, { grant_type: JWT_BEARER, assertion });
      expect(res.status).toBe(400);
      expect((await res.json()).error).toBe('invalid_grant');
    }
    const shortLived = await startIdentityApi({ ANON_ASSERTION_TTL_S: '1', PUBLIC_BASE_URL: api.url });
    try {
      const old = await registerAnonymous(shortLived);
      await new Promise((r) => setTimeout(r, 2100));
      const res = await tokenRequest(api, { grant_type: JWT_BEARER, assertion: old.identity_assertion });
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({ error: 'invalid_grant', error_description: expect.stringMatching(/expired/) });
    } finally {
      await shortLived.close();
    }
  });

  it('answers 401 for an expired access token, also one the API has already verified (and remembers)', async () => {
    const shortLived = await startIdentityApi({ ACCESS_TOKEN_TTL_S: '2' });
    try {
      const reg = await registerAnonymous(shortLived);
      const token = await accessTokenFor(shortLived, reg.identity_assertion);
      // Accepted while valid (its verified signature is then remembered, src/identity/tokens.ts)...
      expect((await fetch(`${shortLived.url}/v0/drives/me`, { headers: bearer(token) })).status).toBe(200);
      // ...and refused once expired all the same (2 s from the whole second it was issued in).
      await new Promise((r) => setTimeout(r, 3100));
      const res = await fetch(`${shortLived.url}/v0/drives/me`, { headers: bearer(token) });
      expect(res.status).toBe(401);
      expect((await res.json()).detail.error.message).toMatch(/expired/);
    } finally {
      await shortLived.close();
    }
  });
});

describe('API keys on the hot path', () => {
  it('a revoked API key is refused at its next request, right after one it passed', async () => {
    const tenant = await createTenant(api.ctx);
    expect((await fetch(`${api.url}/v0/drives/me`, { headers: tenant.auth })).status).toBe(200);
    const [key] = await listApiKeys(api.ctx.orm.em.fork(), tenant.driveId);
    expect(await revokeApiKey(api.ctx.orm.em.fork(), tenant.driveId, key!.id)).toBe(true);
    const res = await fetch(`${api.url}/v0/drives/me`, { headers: tenant.auth });
    expect(res.status).toBe(401);
    expect((await res.json()).detail.error.message).toMatch(/invalid or revoked API key/);
  });
});

describe('token endpoint errors (RFC 6749 shape)', () => {
  it('unknown grant type', async () => {
    const res = await tokenRequest(api, { grant_type: 'password', username: 'a', password: 'b' });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'unsupported_grant_type', error_description: expect.any(String) });
  });

  it('missing fields, wrong content type, malformed and oversized bodies', async () => {
    const missing = await tokenRequest(api, { grant_type: JWT_BEARER });
    expect((await missing.json()).error).toBe('invalid_request');
    const noGrant = await tokenRequest(api, {});
    expect((await noGrant.json()).error).toBe('invalid_request');

    const json = await fetch(`${api.url}/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"grant_type": ',
    });
    expect(json.status).toBe(400);
    expect(await json.json()).toEqual({
      error: 'invalid_request',
      error_description: expect.stringMatching(/Content-Type/),
    });

    const huge = await tokenRequest(api, { grant_type: JWT_BEARER, assertion: 'a'.repeat(20_000) });
    expect(huge.status).toBe(400);
    expect((await huge.json()).error).toBe('invalid_request');

    const long = await tokenRequest(api, { grant_type: JWT_BEARER, assertion: 'a'.repeat(9000) });
    expect(await long.json()).toEqual({ error: 'invalid_request', error_description: 'assertion is too long' });
  });
});

describe('registration input errors', () => {
  const post = (body: string, contentType = 'application/json') =>
    fetch(`${api.url}/agent/identity`, { method: 'POST', headers: { 'content-type': contentType }, body });

  it('gives clear errors and writes no rows', async () => {
    await expectNoNewRows(api, ['drives', 'agent_identities'], async () => {
      const malformed = await post('{"type": "anonym');
      expect(malformed.status).toBe(400);
      expect((await malformed.json()).detail.error.code).toBe('MALFORMED_JSON');

      const wrongType = await post('type=anonymous', 'application/x-www-form-urlencoded');
      expect(wrongType.status).toBe(415);
      expect((await wrongType.json()).detail.error.code).toBe('INVALID_BODY');

      for (const body of [
        {},
        { type: 'magic' },
        { type: 'anonymous', extra: 1 },
        { type: 'identity_assertion', agent_provider: 'x' },
        { type: 'identity_assertion', agent_provider: 'p'.repeat(65), assertion: 'a' },
        { type: 'identity_assertion', agent_provider: 'x', assertion: 'a'.repeat(9000) },
      ]) {
        const res = await post(JSON.stringify(body));
        expect(res.status, JSON.stringify(body)).toBe(400);
        const err = (await res.json()).detail.error;
        expect(err.code).toBe('INVALID_BODY');
        expect(err.message).toMatch(/body/);
      }

      const unknownProvider = await post(
        JSON.stringify({ type: 'identity_assertion', agent_provider: 'nobody', assertion: 'a.b.c' }),
      );
      expect(unknownProvider.status).toBe(400);
      expect((await unknownProvider.json()).detail.error.code).toBe('UNKNOWN_PROVIDER');
    });
  });

  it('is 503 AGENT_AUTH_NOT_CONFIGURED without a signing key', async () => {
    const unconfigured = await startTestApi({ AGENT_SIGNING_KEY: '' });
    try {
      const res = await fetch(`${unconfigured.url}/agent/identity`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ type: 'anonymous' }),
      });
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('60');
      expect((await res.json()).detail.error.code).toBe('AGENT_AUTH_NOT_CONFIGURED');
      const token = await tokenRequest(unconfigured, { grant_type: JWT_BEARER, assertion: 'a.b.c' });
      expect(token.status).toBe(503);
      expect((await token.json()).error).toBe('temporarily_unavailable');
    } finally {
      await unconfigured.close();
    }
  });

  it('is 503 with an unusable signing key, writing nothing', async () => {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    for (const key of ['not a pem', privateKey.export({ type: 'pkcs8', format: 'pem' }).toString()]) {
      const broken = await startIdentityApi({ AGENT_SIGNING_KEY: key });
      try {
        await expectNoNewRows(broken, ['drives', 'agent_identities'], async () => {
          const res = await fetch(`${broken.url}/agent/identity`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ type: 'anonymous' }),
          });
          expect(res.status).toBe(503);
          expect((await res.json()).detail.error.code).toBe('AGENT_AUTH_NOT_CONFIGURED');
        });
      } finally {
        await broken.close();
      }
    }
  });

  it('limits registrations per client IP with 429 and Retry-After', async () => {
    const limited = await startTestApi({ REGISTRATIONS_PER_IP_PER_HOUR: '2' });
    const ip = `203.0.113.${Math.floor(Math.random() * 250) + 1}`;
    try {
      const other = { 'x-forwarded-for': `198.51.100.${Math.floor(Math.random() * 250) + 1}` };
      await registerAnonymous(limited, { 'x-forwarded-for': ip });
      await registerAnonymous(limited, { 'x-forwarded-for': ip });
      await expectNoNewRows(limited, ['drives', 'agent_identities'], async () => {
        const res = await fetch(`${limited.url}/agent/identity`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-forwarded-for': ip },
          body: JSON.stringify({ type: 'anonymous' }),
        });
        expect(res.status).toBe(429);
        expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
        expect((await res.json()).detail.error.code).toBe('RATE_LIMITED');
      });
      await registerAnonymous(limited, other); // another address is unaffected
    } finally {
      await limited.close();
    }
  });
});
