import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeJwt, exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWTPayload } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApi } from '../helpers/api.js';
import { createTenant } from '../helpers/tenant.js';
import {
  accessTokenFor,
  bearer,
  claimThroughPages,
  expectNoNewRows,
  startIdentityApi,
  uniqueEmail,
  WebClient,
} from './helpers.js';

const ISSUER = 'https://idp.acme.test';
let api: TestApi;
let jwksServer: Server;
let signingKey: CryptoKey;
let jwksHits = 0;

beforeAll(async () => {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  signingKey = privateKey;
  const jwk = { ...(await exportJWK(publicKey)), kid: 'acme-1', alg: 'ES256', use: 'sig' };
  // The provider's JWKS, served by a real HTTP server on loopback.
  jwksServer = createServer((req, res) => {
    if (req.url !== '/.well-known/jwks.json') return res.writeHead(404).end();
    jwksHits++;
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] }));
  });
  await new Promise<void>((r) => jwksServer.listen(0, '127.0.0.1', r));
  const jwksUri = `http://127.0.0.1:${(jwksServer.address() as AddressInfo).port}/.well-known/jwks.json`;
  api = await startIdentityApi({ ID_JAG_PROVIDERS: JSON.stringify({ acme: { issuer: ISSUER, jwks_uri: jwksUri } }) });
});
afterAll(async () => {
  await api?.close();
  await new Promise((r) => jwksServer?.close(r));
});

async function idJag(claims: JWTPayload, opts: { key?: CryptoKey; typ?: string; exp?: number } = {}) {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ email_verified: true, ...claims })
    .setProtectedHeader({ alg: 'ES256', kid: 'acme-1', typ: opts.typ ?? 'oauth-id-jag+jwt' })
    .setIssuer((claims.iss as string) ?? ISSUER)
    .setAudience((claims.aud as string) ?? api.url)
    .setSubject((claims.sub as string) ?? `user-${randomUUID()}`)
    .setJti(randomUUID())
    .setIssuedAt(now)
    .setExpirationTime(opts.exp ?? now + 300)
    .sign(opts.key ?? signingKey);
}

const register = (assertion: string, provider = 'acme') =>
  fetch(`${api.url}/agent/identity`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ type: 'identity_assertion', agent_provider: provider, assertion }),
  });

describe('ID-JAG registration', () => {
  it("binds a full-scope claimed identity to the user's existing drive, checked against the provider JWKS", async () => {
    const email = uniqueEmail('jag');
    const tenant = await createTenant(api.ctx, email);
    const res = await register(await idJag({ email: email.toUpperCase() }));
    expect(res.status).toBe(201);
    const body = await res.json();
    expect(body.drive_id).toBe(tenant.driveId);
    expect(body.scope).toBe('full');
    const claims = decodeJwt(body.identity_assertion);
    expect(claims.exp! - claims.iat!).toBe(90 * 24 * 3600);
    expect(jwksHits).toBeGreaterThan(0);

    const access = await accessTokenFor(api, body.identity_assertion);
    const me = await (await fetch(`${api.url}/v0/drives/me`, { headers: bearer(access) })).json();
    expect(me).toMatchObject({ drive_id: tenant.driveId, email, claimed: true, scope: 'full' });
  });

  it('creates a claimed drive for a user who has none, and reuses it next time', async () => {
    const email = uniqueEmail('newjag');
    const first = await (await register(await idJag({ email }))).json();
    const second = await (await register(await idJag({ email }))).json();
    expect(second.drive_id).toBe(first.drive_id);
    expect(second.agent_identity_id).not.toBe(first.agent_identity_id);
    const [drive] = await api.ctx.orm.em
      .fork()
      .execute('select owner_email, claimed_at, expires_at from drives where id = ?', [first.drive_id]);
    expect(drive.owner_email).toBe(email);
    expect(drive.claimed_at).not.toBeNull();
    expect(drive.expires_at).toBeNull();
  });

  it("never binds to a drive claimed through the web page (that account's email is not verified)", async () => {
    const email = uniqueEmail('squatter');
    const web = new WebClient(api.url);
    await web.signUp(email);
    const squatted = await claimThroughPages(api, web);
    const res = await register(await idJag({ email }));
    expect(res.status).toBe(201);
    expect((await res.json()).drive_id).not.toBe(squatted.drive_id);
  });

  it('refuses bad assertions with the named codes and writes no rows', async () => {
    const email = uniqueEmail('bad');
    const { privateKey: otherKey } = await generateKeyPair('ES256');
    const cases: [string, Promise<string>, number, string][] = [
      ['wrong issuer', idJag({ email, iss: 'https://evil.test' }), 401, 'ID_JAG_INVALID'],
      ['wrong audience', idJag({ email, aud: 'https://other-service.test' }), 401, 'ID_JAG_INVALID'],
      ['expired', idJag({ email }, { exp: Math.floor(Date.now() / 1000) - 600 }), 401, 'ID_JAG_INVALID'],
      ['foreign signature', idJag({ email }, { key: otherKey }), 401, 'ID_JAG_INVALID'],
      ['wrong typ', idJag({ email }, { typ: 'JWT' }), 401, 'ID_JAG_INVALID'],
      ['garbage', Promise.resolve('not-a-jwt'), 401, 'ID_JAG_INVALID'],
      ['unverified email', idJag({ email, email_verified: false }), 403, 'ID_JAG_EMAIL_UNVERIFIED'],
      ['no email', idJag({}), 403, 'ID_JAG_EMAIL_UNVERIFIED'],
    ];
    const signed = await Promise.all(cases.map(([, assertion]) => assertion));
    const untrusted = await idJag({ email });
    await expectNoNewRows(api, ['drives', 'agent_identities'], async () => {
      for (const [i, [name, , status, code]] of cases.entries()) {
        const res = await register(signed[i]);
        expect(res.status, name).toBe(status);
        expect((await res.json()).detail.error.code, name).toBe(code);
      }
      const unknown = await register(untrusted, 'not-trusted');
      expect(unknown.status).toBe(400);
      expect((await unknown.json()).detail.error.code).toBe('UNKNOWN_PROVIDER');
    });
  });

  it('refuses a replayed assertion (same jti)', async () => {
    const assertion = await idJag({ email: uniqueEmail('replay') });
    expect((await register(assertion)).status).toBe(201);
    const again = await register(assertion);
    expect(again.status).toBe(401);
    expect((await again.json()).detail.error).toEqual({
      code: 'ID_JAG_INVALID',
      message: expect.stringMatching(/replay/),
    });
  });
});
