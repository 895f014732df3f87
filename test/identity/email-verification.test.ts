import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApi } from '../helpers/api.js';
import { startMailbox, verificationPath, type Mailbox } from '../helpers/mailbox.js';
import { createTenant } from '../helpers/tenant.js';
import { bearer, claimThroughPages, startIdentityApi, tokenRequest, uniqueEmail, WebClient } from './helpers.js';

/**
 * Issue 23, finding 1: an email grant reached whoever signed up with the address first. Now the
 * address counts (drive owner email, `{type: user, email}` grants) only after its owner follows the
 * link mailed to it, signed in to the account; the mail is read from an SMTP server in this test.
 */
let api: TestApi;
let mailbox: Mailbox;

beforeAll(async () => {
  mailbox = await startMailbox();
  api = await startIdentityApi({ SMTP_URL: mailbox.url, MAIL_FROM: 'Drive <drive@example.test>' });
});
afterAll(async () => {
  await api?.close();
  await mailbox?.close();
});

/** The drive's full access token after the claim (the claim grant's fresh token). */
async function claimedToken(claimToken: string): Promise<string> {
  const res = await tokenRequest(api, { grant_type: 'claim', claim_token: claimToken });
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()).access_token;
}

describe('email verification', () => {
  it('the takeover sequence ends in 404 until the address is verified through the mailed link', async () => {
    const victim = `victim-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@corp.example`;
    // Drive A shares an artifact with the address.
    const a = await createTenant(api.ctx);
    const put = await fetch(`${api.url}/v0/artifacts/plans/secret.txt`, {
      method: 'PUT',
      headers: a.auth,
      body: 'A only',
    });
    const artId = (await put.json()).art_id;
    const g = await fetch(`${api.url}/v0/grants`, {
      method: 'POST',
      headers: { ...a.auth, 'content-type': 'application/json' },
      body: JSON.stringify({ resource: artId, principal: { type: 'user', email: victim }, role: 'viewer' }),
    });
    expect(g.status).toBe(201);

    // Someone signs up with the address (not verified), registers an agent and approves its claim.
    const web = new WebClient(api.url);
    await web.signUp(victim);
    const reg = await claimThroughPages(api, web);
    const token = bearer(await claimedToken(reg.claim_token));
    for (const path of [
      `/v0/artifacts/${artId}/download`,
      `/v0/artifacts/${artId}/versions/1/download`,
      `/v0/artifacts/${artId}`,
    ]) {
      const res = await fetch(`${api.url}${path}`, { headers: token });
      expect(res.status, path).toBe(404);
      expect((await res.json()).detail.error.code).toBe('ARTIFACT_NOT_FOUND');
    }
    const me = await (await fetch(`${api.url}/v0/drives/me`, { headers: token })).json();
    expect(me.email).toBeNull();
    const dash = await web.get('/dashboard');
    expect(dash.body).toContain('data-testid="email-unverified"');

    // The mail went to the address, from MAIL_FROM; its owner follows the link signed in.
    const mail = await mailbox.waitFor(victim);
    expect(mail.text).toMatch(/^From: Drive <drive@example\.test>/m);
    await web.verifyEmail(mailbox, victim);
    expect((await web.get('/dashboard')).body).not.toContain('data-testid="email-unverified"');
    const download = await fetch(`${api.url}/v0/artifacts/${artId}/download`, { headers: token });
    expect(download.status).toBe(200);
    expect(await download.text()).toBe('A only');
    expect((await fetch(`${api.url}/v0/artifacts/${artId}/versions/1/download`, { headers: token })).status).toBe(200);
    expect((await (await fetch(`${api.url}/v0/drives/me`, { headers: token })).json()).email).toBe(victim);
  });

  it('a claim approved after verification carries the owner email at once', async () => {
    const email = uniqueEmail('verified-first');
    const web = new WebClient(api.url);
    await web.signUp(email);
    await web.verifyEmail(mailbox, email);
    const reg = await claimThroughPages(api, web);
    const me = await (
      await fetch(`${api.url}/v0/drives/me`, { headers: bearer(await claimedToken(reg.claim_token)) })
    ).json();
    expect(me.email).toBe(email);
  });

  it('a link needs a session of its own account; a GET never spends it; it works once', async () => {
    const email = uniqueEmail('link-rules');
    const owner = new WebClient(api.url);
    await owner.signUp(email);
    const path = verificationPath(await mailbox.waitFor(email));
    const token = new URL(path, api.url).searchParams.get('token')!;

    // Signed out (the mailbox owner who never made the account): sign in first, nothing spent.
    const anon = new WebClient(api.url);
    const out = await anon.get(path);
    expect(out.res.status).toBe(303);
    expect(out.res.headers.get('location')).toBe(`/auth/login?return_to=${encodeURIComponent(path)}`);

    // Another account cannot spend it.
    const other = new WebClient(api.url);
    await other.signUp(uniqueEmail('other'));
    const otherPage = await other.get(path);
    const wrong = await other.post('/auth/verify', { csrf: WebClient.csrfOf(otherPage.body), token });
    expect(wrong.res.status).toBe(403);
    // No CSRF token, no confirmation.
    expect((await owner.post('/auth/verify', { token })).res.status).toBe(403);

    await owner.verifyEmail(mailbox, email);
    const page = await owner.get(path);
    const again = await owner.post('/auth/verify', { csrf: WebClient.csrfOf(page.body), token });
    expect(again.res.status).toBe(410);
    // A made-up token is the same answer.
    expect(
      (await owner.post('/auth/verify', { csrf: WebClient.csrfOf(page.body), token: 'adev_nope' })).res.status,
    ).toBe(410);
  });

  it('the dashboard resends a fresh link; resends are limited per account', async () => {
    const email = uniqueEmail('resend');
    const web = new WebClient(api.url);
    await web.signUp(email);
    await mailbox.waitFor(email);
    const before = mailbox.messages.length;
    const dash = await web.get('/dashboard');
    const resent = await web.post('/dashboard/verify-email', { csrf: WebClient.csrfOf(dash.body) });
    expect(resent.res.status, resent.body).toBe(303); // POST → 303 → GET: the dashboard says it once
    expect((await web.get('/dashboard')).body).toContain('A new link is on its way');
    const fresh = await mailbox.waitFor(email, before);
    expect(verificationPath(fresh)).not.toBe(verificationPath(mailbox.messages.find((m) => m.to.includes(email))!));
    // 5 mails an hour per account (the sign-up's included): the 6th is refused.
    let last = resent;
    for (let i = 0; i < 4; i++) last = await web.post('/dashboard/verify-email', { csrf: WebClient.csrfOf(dash.body) });
    expect(last.res.status).toBe(429);
    expect(Number(last.res.headers.get('retry-after'))).toBeGreaterThan(0);
    await web.verifyEmail(mailbox, email, before);
  });
});
