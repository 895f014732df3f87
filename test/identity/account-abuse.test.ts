import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApi } from '../helpers/api.js';
import { startMailbox, type Mailbox } from '../helpers/mailbox.js';
import { createTenant } from '../helpers/tenant.js';
import { redeemShare } from '../../src/sharing/shares.js';
import { retireUnconfirmedAccounts } from '../../src/identity/password-reset.js';
import { AppError } from '../../src/lib/errors.js';
import { claimThroughPages, randomIp, startIdentityApi, uniqueEmail, WebClient } from './helpers.js';

/** Issue 37, findings 4, 5, 9 and 13: addresses cannot be squatted, guesses are counted as made, one recipient. */
let api: TestApi;
let mailbox: Mailbox;
beforeAll(async () => {
  mailbox = await startMailbox();
  api = await startIdentityApi({
    SMTP_URL: mailbox.url,
    LOGIN_FAILURES_PER_IP_PER_HOUR: '20',
    SHARE_PASSWORD_FAILURES_PER_LINK_PER_HOUR: '20',
    SHARE_PASSWORD_FAILURES_PER_IP_PER_HOUR: '1000',
    UNVERIFIED_ACCOUNT_TTL_S: '1',
  });
});
afterAll(async () => {
  await api?.close();
  await mailbox?.close();
});

const resetPath = (text: string) => {
  const m = /https?:\/\/[^/\s]+(\/auth\/reset\?token=adrs_[\w-]+)/.exec(text);
  if (!m) throw new Error(`no reset link in:\n${text}`);
  return m[1]!;
};
const signUpForm = async (web: WebClient, email: string, password: string) => {
  const form = await web.get('/auth/signup');
  return web.post('/auth/signup', { csrf: WebClient.csrfOf(form.body), email, password, return_to: '/dashboard' });
};
const forgot = async (web: WebClient, email: string) => {
  const form = await web.get('/auth/forgot');
  return web.post('/auth/forgot', { csrf: WebClient.csrfOf(form.body), email });
};
const signIn = async (web: WebClient, email: string, password: string) => {
  const form = await web.get('/auth/login');
  return web.post('/auth/login', { csrf: WebClient.csrfOf(form.body), email, password, return_to: '/dashboard' });
};

describe('a squatted address', () => {
  it('the owner takes it back through the mailed link: the squatter never signs in', async () => {
    const victim = uniqueEmail('victim');
    // The squatter signs up with an address whose mailbox they do not hold: the account exists, unconfirmed, and
    // its password signs nobody in.
    const squatter = new WebClient(api.url, { 'x-forwarded-for': randomIp() });
    const beforeSquatter = mailbox.messages.length;
    await squatter.startSignUp(victim, 'squatter password');
    // Its confirmation mail lands first, so the owner's reset mail below is not mistaken for it (or it for that).
    await mailbox.waitFor(victim, beforeSquatter);
    expect((await signIn(squatter, victim, 'squatter password')).res.status).toBe(401);
    expect((await squatter.get('/dashboard')).res.status).toBe(303);

    // The owner signs up too: no "already exists", a link in their mailbox instead.
    const owner = new WebClient(api.url);
    const before = mailbox.messages.length;
    const answer = await signUpForm(owner, victim, 'owner password 1');
    expect(answer.res.status).toBe(200);
    expect(answer.body).not.toMatch(/already exists/i);
    const path = resetPath((await mailbox.waitFor(victim, before)).text);
    const page = await owner.get(path);
    expect(page.res.status).toBe(200);
    const token = new URL(path, api.url).searchParams.get('token')!;
    const set = await owner.post('/auth/reset', {
      csrf: WebClient.csrfOf(page.body),
      token,
      password: 'owner password 2',
    });
    expect([set.res.status, set.res.headers.get('location')]).toEqual([303, '/dashboard']);
    expect((await owner.get('/dashboard')).res.status).toBe(200);

    // The squatter's password opens nothing, and the link is spent.
    expect(
      (await signIn(new WebClient(api.url, { 'x-forwarded-for': randomIp() }), victim, 'squatter password')).res.status,
    ).toBe(401);
    expect((await signIn(new WebClient(api.url), victim, 'owner password 2')).res.status).toBe(303);
    const again = await owner.post('/auth/reset', {
      csrf: WebClient.csrfOf((await owner.get(path)).body),
      token,
      password: 'third password here',
    });
    expect(again.res.status).toBe(400);
    const [row] = await api.ctx.orm.em
      .fork()
      .execute<{ verified: boolean }[]>(
        `select email_verified_at is not null as verified from human_users where email = ?`,
        [victim],
      );
    expect(row).toEqual({ verified: true });
  });

  it('sign-up and "forgot password" answer the same whether or not the address has an account', async () => {
    const known = uniqueEmail('known');
    await new WebClient(api.url).signUp(known);
    const unknown = uniqueEmail('unknown');
    const strip = (body: string, email: string) =>
      body.replaceAll(email, '<email>').replace(/(value|nonce)="[^"]+"/g, '');
    const a = await forgot(new WebClient(api.url), known);
    const b = await forgot(new WebClient(api.url), unknown);
    expect([a.res.status, strip(a.body, known)]).toEqual([b.res.status, strip(b.body, unknown)]);
    // Sign-up: a taken address and a new one get the same page (each gets a different mail: set a password, or
    // confirm the new account), and neither signs anyone in.
    const fresh = uniqueEmail('fresh');
    const c = await signUpForm(new WebClient(api.url), known, 'another password');
    const d = await signUpForm(new WebClient(api.url), fresh, 'another password');
    expect([c.res.status, strip(c.body, known)]).toEqual([d.res.status, strip(d.body, fresh)]);
    expect([c.res.status, strip(c.body, known)]).toEqual([b.res.status, strip(b.body, unknown)]);
    for (const r of [c, d]) expect(r.res.headers.getSetCookie().join()).not.toMatch(/ad_session=[^;]/);
  });

  it('an unconfirmed account expires and releases its address', async () => {
    const email = uniqueEmail('stale');
    await new WebClient(api.url).startSignUp(email, 'first password 1');
    await new Promise((r) => setTimeout(r, 1100));
    expect(await retireUnconfirmedAccounts(api.ctx)).toBeGreaterThan(0);
    // Released: a new sign-up makes a new account (its mail confirms one) rather than mailing a password link.
    const before = mailbox.messages.length;
    expect((await signUpForm(new WebClient(api.url), email, 'second password 2')).res.status).toBe(200);
    expect((await mailbox.waitFor(email, before)).text).toMatch(/\/auth\/verify\?token=adev_/);
  });
});

describe('verification mail', () => {
  it('accepts one addr-spec only and mails nobody else', async () => {
    const before = mailbox.messages.length;
    for (const email of ['someone,rev2x@example.test', 'a <rev2x@example.test>', '"x"@example.test', 'a b@x.test']) {
      const r = await signUpForm(new WebClient(api.url), email, 'long enough password');
      expect([email, r.res.status]).toEqual([email, 400]);
    }
    const email = uniqueEmail('single');
    await new WebClient(api.url).signUp(email);
    await mailbox.waitFor(email, before);
    for (const m of mailbox.messages.slice(before)) expect(m.to).toEqual([email.toLowerCase()]);
  });
});

describe('guesses are counted as they are made', () => {
  it('40 concurrent wrong share passwords against a limit of 20: 20 compared, 20 refused', async () => {
    const t = await createTenant(api.ctx);
    await fetch(`${api.url}/v0/artifacts/pw/a.md`, { method: 'PUT', headers: t.auth, body: 'a' });
    const mint = await fetch(`${api.url}/v0/shares`, {
      method: 'POST',
      headers: { ...t.auth, 'content-type': 'application/json' },
      body: JSON.stringify({ resource: 'pw/a.md', password: 'the right one' }),
    });
    const key = ((await mint.json()) as { share_key: string }).share_key;
    const codes = await Promise.all(
      Array.from({ length: 40 }, () =>
        redeemShare(api.ctx, key, 'wrong guess', '198.51.100.7').then(
          () => 'ok',
          (err: AppError) => err.code,
        ),
      ),
    );
    expect(codes.filter((c) => c === 'SHARE_PASSWORD_REQUIRED')).toHaveLength(20);
    expect(codes.filter((c) => c === 'RATE_LIMITED')).toHaveLength(20);
  });

  it('40 concurrent wrong sign-ins for one account from 40 addresses: counted as made, slowed past 20, none refused', async () => {
    const email = uniqueEmail('target');
    await new WebClient(api.url).signUp(email);
    const statuses = await Promise.all(
      Array.from({ length: 40 }, async (_, i) => {
        const web = new WebClient(api.url, { 'x-forwarded-for': `198.51.100.${i + 10}` });
        return (await signIn(web, email, 'not the password')).res.status;
      }),
    );
    expect(statuses.filter((s) => s === 401)).toHaveLength(40);
    const [counted] = await api.ctx.orm.em
      .fork()
      .execute<{ count: number }[]>(`select count from rate_counters where bucket = ?`, [
        `login_failure_account:${email}`,
      ]);
    expect(counted).toEqual({ count: 20 });
    // The account's guesses are spent, yet a right password is not refused (issue 54): the owner signs in.
    const right = await signIn(
      new WebClient(api.url, { 'x-forwarded-for': '198.51.100.99' }),
      email,
      'correct horse battery',
    );
    expect(right.res.status).toBe(303);
  });
});

describe('secrets carried to the next page (finding 12)', () => {
  it('a new API key rides to the keys page in an encrypted cookie, readable there once', async () => {
    const web = new WebClient(api.url);
    await web.signUp(uniqueEmail('keys'));
    const reg = await claimThroughPages(api, web);
    const page = await web.get('/settings/api-keys');
    const minted = await web.post('/settings/api-keys', {
      csrf: WebClient.csrfOf(page.body),
      drive_id: reg.drive_id,
      label: 'flash',
    });
    expect(minted.res.status).toBe(303);
    const flash = minted.res.headers
      .getSetCookie()
      .map((c) => c.split(';')[0]!)
      .find((c) => c.startsWith('ad_flash='))!;
    const value = decodeURIComponent(flash.slice('ad_flash='.length));
    // No part of the cookie, decoded, shows the key (it was base64url JSON, signed but readable, before).
    for (const part of value.split('.'))
      expect(Buffer.from(part, 'base64url').toString('latin1')).not.toMatch(/ad_live_/);
    const shown = await web.get('/settings/api-keys');
    expect(shown.body).toMatch(/ad_live_[\w-]{20,}/);
    expect((await web.get('/settings/api-keys')).body).not.toMatch(/ad_live_[\w-]{20,}/);
  });
});
