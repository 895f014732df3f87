import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApi } from '../helpers/api.js';
import { startMailbox, verificationPath, type Mailbox } from '../helpers/mailbox.js';
import { createTenant } from '../helpers/tenant.js';
import {
  bearer,
  claimThroughPages,
  randomIp,
  startIdentityApi,
  tokenRequest,
  uniqueEmail,
  WebClient,
} from './helpers.js';

/**
 * Issue 23, finding 1: an email grant reached whoever signed up with the address first. Now the
 * address counts (drive owner email, `{type: user, email}` grants) only after its owner follows the
 * link mailed to it with the account's password (or signed in to it); the mail is read from an SMTP server here.
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
  it('an email grant reaches an account only once the address is confirmed through the mailed link', async () => {
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

    // Someone without the mailbox signs up with the address: the password alone never signs in, so no drive of
    // theirs ever stands for the address.
    const squatter = new WebClient(api.url, { 'x-forwarded-for': randomIp() });
    await squatter.startSignUp(victim, 'squatter password');
    const login = await squatter.get('/auth/login');
    const refused = await squatter.post('/auth/login', {
      csrf: WebClient.csrfOf(login.body),
      email: victim,
      password: 'squatter password',
    });
    expect(refused.res.status).toBe(401);
    expect(refused.body).toContain('not confirmed yet');

    // The mail went to the address, from MAIL_FROM; whoever holds the link and the password is signed in.
    const mail = await mailbox.waitFor(victim);
    expect(mail.text).toMatch(/^From: Drive <drive@example\.test>/m);
    const web = new WebClient(api.url);
    const page = await web.get(verificationPath(mail));
    const token = new URL(verificationPath(mail), api.url).searchParams.get('token')!;
    const confirmed = await web.post('/auth/verify', {
      csrf: WebClient.csrfOf(page.body),
      token,
      return_to: '/dashboard',
      password: 'squatter password',
    });
    expect(confirmed.res.status, confirmed.body).toBe(303);
    expect((await web.get('/dashboard')).body).not.toContain('data-testid="email-unverified"');
    const reg = await claimThroughPages(api, web);
    const token2 = bearer(await claimedToken(reg.claim_token));
    const download = await fetch(`${api.url}/v0/artifacts/${artId}/download`, { headers: token2 });
    expect(download.status).toBe(200);
    expect(await download.text()).toBe('A only');
    expect((await fetch(`${api.url}/v0/artifacts/${artId}/versions/1/download`, { headers: token2 })).status).toBe(200);
    expect((await (await fetch(`${api.url}/v0/drives/me`, { headers: token2 })).json()).email).toBe(victim);
  });

  it('a claim approved after sign-up carries the owner email at once', async () => {
    const email = uniqueEmail('verified-first');
    const web = new WebClient(api.url);
    await web.signUp(email);
    const reg = await claimThroughPages(api, web);
    const me = await (
      await fetch(`${api.url}/v0/drives/me`, { headers: bearer(await claimedToken(reg.claim_token)) })
    ).json();
    expect(me.email).toBe(email);
  });

  it('a link confirms with the password chosen at sign-up; a GET never spends it; it works once', async () => {
    const email = uniqueEmail('link-rules');
    const password = 'the chosen password';
    const owner = new WebClient(api.url);
    await owner.startSignUp(email, password);
    const path = verificationPath(await mailbox.waitFor(email));
    const token = new URL(path, api.url).searchParams.get('token')!;

    // Opened signed out (the usual way): a form asking for the password; the GET spends nothing.
    const form = await owner.get(path);
    expect(form.res.status).toBe(200);
    expect(form.body).toContain('Confirm and sign in');
    // The mailbox's owner who never made the account (a wrong password) confirms nobody, and spends nothing.
    const wrong = await owner.post('/auth/verify', {
      csrf: WebClient.csrfOf(form.body),
      token,
      password: 'guess 12345',
    });
    expect(wrong.res.status).toBe(400);
    // Another account's session cannot spend it.
    const other = new WebClient(api.url);
    await other.signUp(uniqueEmail('other'));
    const otherPage = await other.get(path);
    const stolen = await other.post('/auth/verify', { csrf: WebClient.csrfOf(otherPage.body), token });
    expect(stolen.res.status).toBe(403);
    // No CSRF token, no confirmation.
    expect((await owner.post('/auth/verify', { token, password })).res.status).toBe(403);

    const done = await owner.post('/auth/verify', { csrf: WebClient.csrfOf(form.body), token, password });
    expect(done.res.status, done.body).toBe(303);
    expect(done.res.headers.get('location')).toBe('/dashboard');
    expect((await owner.get('/dashboard')).body).toContain(email);
    // Spent: a second use, signed out, is refused like a made-up token.
    const fresh = new WebClient(api.url);
    const again = await fresh.get(path);
    const reused = await fresh.post('/auth/verify', { csrf: WebClient.csrfOf(again.body), token, password });
    expect(reused.res.status).toBe(400);
    const madeUp = { csrf: WebClient.csrfOf(again.body), token: 'adev_nope', password };
    expect((await fresh.post('/auth/verify', madeUp)).res.status).toBe(400);
  });

  it('the dashboard resends a fresh link; resends are limited per account', async () => {
    const email = uniqueEmail('resend');
    const web = new WebClient(api.url);
    await web.signUp(email);
    // A session of an account whose address is not confirmed (signed in before confirmation was asked first).
    await api.ctx.orm.em.fork().execute(`update human_users set email_verified_at = null where email = ?`, [email]);
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
