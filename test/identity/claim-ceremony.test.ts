import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApi } from '../helpers/api.js';
import { USER_CODE_RE } from '../../src/identity/claims.js';
import { listToolsRaw } from '../mcp/helpers.js';
import { unclaimedDriveWorkflowId } from '../../src/temporal/identity-messages.js';
import {
  accessTokenFor,
  bearer,
  JWT_BEARER,
  registerAnonymous,
  startClaim,
  startIdentityApi,
  tokenRequest,
  uniqueEmail,
  waitFor,
  WebClient,
} from './helpers.js';

let api: TestApi;
beforeAll(async () => {
  api = await startIdentityApi();
});
afterAll(async () => api?.close());

const poll = (claimToken: string) => tokenRequest(api, { grant_type: 'claim', claim_token: claimToken });

describe('claim ceremony', () => {
  it('starts with an 8-character code and a verification link; polling before a decision is authorization_pending', async () => {
    const reg = await registerAnonymous(api);
    const claim = await startClaim(api, reg.claim_token);
    expect(claim.user_code).toMatch(USER_CODE_RE);
    expect(claim.user_code).not.toMatch(/[01IOLSZB5U]/);
    expect(claim.verification_uri).toBe(`${api.url}/claim`);
    expect(claim.verification_uri_complete).toBe(`${api.url}/claim?code=${claim.user_code}`);
    const windowS = (Date.parse(claim.expires_at) - Date.now()) / 1000;
    expect(windowS).toBeGreaterThan(590);
    expect(windowS).toBeLessThanOrEqual(600);

    const res = await poll(reg.claim_token);
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'authorization_pending', error_description: expect.any(String) });
  });

  it('approved through the pages: drive claimed and permanent, assertion rotated, claim grant returns a 90-day full assertion', async () => {
    const reg = await registerAnonymous(api);
    const oldAccess = await accessTokenFor(api, reg.identity_assertion);
    const claim = await startClaim(api, reg.claim_token);

    const web = new WebClient(api.url);
    const anonymous = await web.get(`/claim?code=${claim.user_code}`);
    expect(anonymous.res.status).toBe(303);
    expect(anonymous.res.headers.get('location')).toBe(
      `/auth/login?return_to=${encodeURIComponent(`/claim?code=${claim.user_code}`)}`,
    );

    const email = uniqueEmail('approver');
    await web.signUp(email);
    const page = await web.get(`/claim?code=${claim.user_code}`);
    expect(page.body).toContain(claim.user_code);
    expect(page.res.headers.get('content-security-policy')).toMatch(/default-src 'none'/);
    const posted = await web.post('/claim', {
      csrf: WebClient.csrfOf(page.body),
      code: claim.user_code,
      decision: 'approve',
    });
    expect(posted.res.status).toBe(303); // POST → 303 → GET: a reload never decides again
    const done = await web.get(posted.res.headers.get('location')!);
    expect(done.body).toContain('Approved');
    expect((await web.get('/claim')).body).not.toContain('Approved');

    // Rotation: the pre-claim assertion is refused at once.
    const old = await tokenRequest(api, { grant_type: JWT_BEARER, assertion: reg.identity_assertion });
    expect(old.status).toBe(400);
    expect((await old.json()).error).toBe('invalid_grant');

    const granted = await poll(reg.claim_token);
    expect(granted.status).toBe(200);
    const body = await granted.json();
    expect(body).toMatchObject({ token_type: 'Bearer', expires_in: 900, scope: 'full' });
    const assertion = decodeJwt(body.identity_assertion);
    expect(assertion.scope).toBe('full');
    expect(assertion.exp! - assertion.iat!).toBe(90 * 24 * 3600);

    const me = await (await fetch(`${api.url}/v0/drives/me`, { headers: bearer(body.access_token) })).json();
    // The account's address was confirmed at sign-up (its mailed link), so it is the drive's email at once.
    expect(me).toMatchObject({ drive_id: reg.drive_id, email, claimed: true, expires_at: null, scope: 'full' });
    // An access token minted before the claim stops working at once (issue 23, finding 14), on /v0 and on MCP.
    const stale = await fetch(`${api.url}/v0/drives/me`, { headers: bearer(oldAccess) });
    expect(stale.status).toBe(401);
    expect((await stale.json()).detail.error.message).toMatch(/before the drive was claimed/);
    const staleMcp = await listToolsRaw(api, oldAccess);
    expect(staleMcp.status).toBe(401);
    expect((await fetch(`${api.url}/v0/drives/me`, { headers: bearer(body.access_token) })).status).toBe(200);

    // The new assertion exchanges; a second claim grant re-issues and rotates again.
    await accessTokenFor(api, body.identity_assertion);
    const again = await (await poll(reg.claim_token)).json();
    expect(again.identity_assertion).toBeDefined();
    expect((await tokenRequest(api, { grant_type: JWT_BEARER, assertion: body.identity_assertion })).status).toBe(400);
    await accessTokenFor(api, again.identity_assertion);

    // Claiming ended the drive's lifecycle workflow.
    const handle = api.ctx.temporal.workflow.getHandle(unclaimedDriveWorkflowId(reg.drive_id));
    expect(await handle.result()).toBe('claimed');

    // Claiming again is refused; the code cannot be reused.
    const twice = await fetch(`${api.url}/agent/identity/claim`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ claim_token: reg.claim_token }),
    });
    expect(twice.status).toBe(409);
    expect((await twice.json()).detail.error.code).toBe('ALREADY_CLAIMED');
    expect((await web.get(`/claim?code=${claim.user_code}`)).res.status).toBe(404);
  });

  it('declined through the pages: the poll says access_denied and the drive stays unclaimed', async () => {
    const reg = await registerAnonymous(api);
    const claim = await startClaim(api, reg.claim_token);
    const web = new WebClient(api.url);
    await web.signUp(uniqueEmail('decliner'));
    const done = await web.decide(claim.user_code, 'decline');
    expect(done.res.status).toBe(200);
    expect(done.body).toContain('Declined');

    const res = await poll(reg.claim_token);
    expect(res.status).toBe(400);
    expect((await res.json()).error).toBe('access_denied');
    const access = await accessTokenFor(api, reg.identity_assertion); // the pre-claim assertion still works
    expect((await (await fetch(`${api.url}/v0/drives/me`, { headers: bearer(access) })).json()).claimed).toBe(false);
  });

  it('expired: the window elapses (timer), the poll says expired_token and the page refuses the code', async () => {
    const shortWindow = await startIdentityApi({ CLAIM_WINDOW_S: '3', PUBLIC_BASE_URL: api.url });
    try {
      const reg = await registerAnonymous(api);
      // Signed in before the short window opens, so a slow machine still sees the pending page.
      const web = new WebClient(api.url);
      await web.signUp(uniqueEmail('late'));
      const claim = await startClaim(shortWindow, reg.claim_token);
      const page = await web.get(`/claim?code=${claim.user_code}`);
      expect(page.res.status).toBe(200);
      await waitFor(async () => {
        const [row] = await api.ctx.orm.em
          .fork()
          .execute(`select status from claim_attempts where user_code = ? order by created_at desc limit 1`, [
            claim.user_code,
          ]);
        return row.status === 'expired';
      }, 20_000);
      const res = await poll(reg.claim_token);
      expect(res.status).toBe(400);
      expect((await res.json()).error).toBe('expired_token');
      const late = await web.post('/claim', {
        csrf: WebClient.csrfOf(page.body),
        code: claim.user_code,
        decision: 'approve',
      });
      expect(late.res.status).toBe(410);
      expect((await poll(reg.claim_token)).status).toBe(400);
    } finally {
      await shortWindow.close();
    }
  });

  it('polls one attempt by claim_attempt_token: an older declined attempt stays declined while the newer one is pending', async () => {
    const reg = await registerAnonymous(api);
    const first = await startClaim(api, reg.claim_token);
    const web = new WebClient(api.url);
    await web.signUp(uniqueEmail('two-attempts'));
    await web.decide(first.user_code, 'decline');
    const second = await startClaim(api, reg.claim_token);
    expect(second.user_code).not.toBe(first.user_code);
    const byAttempt = (token: string) =>
      tokenRequest(api, { grant_type: 'claim', claim_token: reg.claim_token, claim_attempt_token: token });
    expect((await (await byAttempt(first.claim_attempt_token)).json()).error).toBe('access_denied');
    expect((await (await byAttempt(second.claim_attempt_token)).json()).error).toBe('authorization_pending');
    expect((await (await poll(reg.claim_token)).json()).error).toBe('authorization_pending'); // newest attempt
    expect((await (await byAttempt('ad_cat_unknown')).json()).error).toBe('invalid_request');
  });

  it('refuses a form without the CSRF token', async () => {
    const reg = await registerAnonymous(api);
    const claim = await startClaim(api, reg.claim_token);
    const web = new WebClient(api.url);
    await web.signUp(uniqueEmail('csrf'));
    const res = await web.post('/claim', { csrf: 'forged', code: claim.user_code, decision: 'approve' });
    expect(res.res.status).toBe(403);
    expect((await poll(reg.claim_token)).status).toBe(400);
  });

  it('claim errors: unknown claim token, missing body fields, and a claim grant before any ceremony', async () => {
    const bad = await fetch(`${api.url}/agent/identity/claim`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ claim_token: 'ad_claim_nope' }),
    });
    expect(bad.status).toBe(401);
    expect((await bad.json()).detail.error.code).toBe('CLAIM_TOKEN_INVALID');
    const empty = await fetch(`${api.url}/agent/identity/claim`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(empty.status).toBe(400);
    expect((await empty.json()).detail.error.code).toBe('INVALID_BODY');

    const unknown = await poll('ad_claim_nope');
    expect(await unknown.json()).toEqual({ error: 'invalid_grant', error_description: expect.stringMatching(/gone/) });
    const reg = await registerAnonymous(api);
    const early = await poll(reg.claim_token);
    expect((await early.json()).error).toBe('invalid_request');
  });

  it('the session cookie is HttpOnly and SameSite=Lax, and Secure when the web origin is https', async () => {
    const res = await fetch(`${api.url}/auth/login`);
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith('ad_session='))!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).not.toMatch(/Secure/);
    const https = await fetch(`${api.url}/auth/login`, { headers: { 'x-forwarded-proto': 'https' } });
    expect(https.headers.getSetCookie().find((c) => c.startsWith('ad_session='))).toMatch(/; Secure/);
  });
});
