import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApi } from '../helpers/api.js';
import { startMailbox, type Mailbox } from '../helpers/mailbox.js';
import { SLOWED_SIGN_IN_MS } from '../../src/identity/sign-in-guard.js';
import { startIdentityApi, uniqueEmail, WebClient } from './helpers.js';

/**
 * Issue 54, findings 3 and 7: whoever knows an address can neither lock its owner out of signing in nor spend the
 * mails the owner asks for, and a sign-up takes as long for a taken address as for a new one. The mail relay here is
 * slow (each message takes MAIL_DELAY_MS), as a real one can be: an answer that waited for a mail would show it.
 */
const MAIL_DELAY_MS = 1_500;
const PASSWORD = 'correct horse battery';
let api: TestApi;
let mailbox: Mailbox;
beforeAll(async () => {
  mailbox = await startMailbox({ delayMs: MAIL_DELAY_MS });
  api = await startIdentityApi({ SMTP_URL: mailbox.url, LOGIN_FAILURES_PER_IP_PER_HOUR: '5' });
});
afterAll(async () => {
  await api?.close();
  await mailbox?.close();
});

const submit = async (web: WebClient, page: string, fields: Record<string, string>) => {
  const form = await web.get(page);
  return web.post(page, { csrf: WebClient.csrfOf(form.body), ...fields });
};
const signIn = (web: WebClient, email: string, password: string) =>
  submit(web, '/auth/login', { email, password, return_to: '/dashboard' });
const signUp = (web: WebClient, email: string) =>
  submit(web, '/auth/signup', { email, password: 'a new long password', return_to: '/dashboard' });
const from = (ip: string) => new WebClient(api.url, { 'x-forwarded-for': ip });
const timed = async <T>(work: () => Promise<T>) => {
  const t0 = performance.now();
  const result = await work();
  return { result, ms: performance.now() - t0 };
};
const resetLinks = (email: string, after: number) =>
  mailbox.messages.slice(after).filter((m) => m.to.includes(email) && /\/auth\/reset\?token=adrs_/.test(m.text));

describe('nobody who knows an address locks its owner out', () => {
  it('after a burst of wrong passwords, the right one signs in from a new address; a known browser is not even slowed', async () => {
    const email = uniqueEmail('burst');
    const owner = from('198.51.100.230');
    await owner.signUp(email, PASSWORD);
    // A password sign-in leaves this browser a known-device cookie.
    await owner.post('/auth/logout', { csrf: WebClient.csrfOf((await owner.get('/dashboard')).body) });
    expect((await signIn(owner, email, PASSWORD)).res.status).toBe(303);
    expect(owner.device).toMatch(/^ad_device=addv_/);

    // The burst: 12 wrong passwords from 6 addresses at once, then one address trying past its own limit (5).
    const spread = await Promise.all(
      Array.from({ length: 12 }, (_, i) => signIn(from(`198.51.100.${100 + (i % 6)}`), email, 'not it')),
    );
    expect(new Set(spread.map((r) => r.res.status))).toEqual(new Set([401]));
    const guesser = from('198.51.100.240');
    const own: number[] = [];
    for (let i = 0; i < 6; i++) own.push((await signIn(guesser, email, 'not it either')).res.status);
    expect(own).toEqual([401, 401, 401, 401, 401, 429]); // the guesser's address is stopped, not the account

    // The right password from an address and a browser never seen: signed in (slowed, not refused).
    const fresh = await timed(() => signIn(from('198.51.100.250'), email, PASSWORD));
    expect([fresh.result.res.status, fresh.result.res.headers.get('location')]).toEqual([303, '/dashboard']);
    expect(fresh.ms).toBeGreaterThanOrEqual(SLOWED_SIGN_IN_MS - 50);
    // The owner's browser, even behind the guesser's spent address: signed in at once.
    owner.headers['x-forwarded-for'] = '198.51.100.240';
    await owner.post('/auth/logout', { csrf: WebClient.csrfOf((await owner.get('/dashboard')).body) });
    const known = await timed(() => signIn(owner, email, PASSWORD));
    expect(known.result.res.status).toBe(303);
    expect(known.ms).toBeLessThan(SLOWED_SIGN_IN_MS);
  });

  it("sign-ups with a taken address mail one link a day; the owner's own reset link arrives after them", async () => {
    const email = uniqueEmail('taken');
    await new WebClient(api.url).signUp(email, PASSWORD);
    const before = mailbox.messages.length;
    for (let i = 0; i < 8; i++) expect((await signUp(from(`203.0.113.${30 + i}`), email)).res.status).toBe(200);
    await mailbox.waitFor(email, before);
    await new Promise((r) => setTimeout(r, MAIL_DELAY_MS + 1_000)); // any other would have arrived by now
    expect(resetLinks(email, before)).toHaveLength(1);

    // "Forgot your password?" has a budget of its own: the link arrives, and sets the password.
    const owner = new WebClient(api.url);
    const asked = mailbox.messages.length;
    expect((await submit(owner, '/auth/forgot', { email })).res.status).toBe(200);
    const mail = await mailbox.waitFor(email, asked);
    const path = /https?:\/\/[^/\s]+(\/auth\/reset\?token=adrs_[\w-]+)/.exec(mail.text)![1]!;
    const token = new URL(path, api.url).searchParams.get('token')!;
    const set = await submit(owner, path, { token, password: 'the owner password' });
    expect([set.res.status, set.res.headers.get('location')]).toEqual([303, '/dashboard']);
  });
});

describe('sign-up timing', () => {
  it('a taken address whose mails are spent answers as fast as a new one; neither waits for the mail', async () => {
    const taken = uniqueEmail('spent');
    await new WebClient(api.url).signUp(taken, PASSWORD);
    await signUp(from('203.0.113.60'), taken); // today's one sign-up mail to it: spent from here on
    const takenMs: number[] = [];
    const freshMs: number[] = [];
    for (let i = 0; i < 5; i++) {
      takenMs.push((await timed(() => signUp(from(`203.0.113.${70 + i}`), taken))).ms);
      freshMs.push((await timed(() => signUp(from(`203.0.113.${80 + i}`), uniqueEmail('fresh')))).ms);
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    // A new address's confirmation mail takes MAIL_DELAY_MS to send; the answer does not wait for it.
    expect(Math.max(...freshMs, ...takenMs)).toBeLessThan(MAIL_DELAY_MS);
    expect(Math.abs(median(freshMs) - median(takenMs))).toBeLessThan(MAIL_DELAY_MS / 3);
  });
});
