import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApi } from '../helpers/api.js';
import { startTestApi } from '../helpers/api.js';
import { createTenant } from '../helpers/tenant.js';
import { registerAnonymous, startClaim, uniqueEmail, WebClient } from './helpers.js';

/**
 * Issue 23, findings 8, 9 and 14: every guessable secret and costly open door is throttled, with
 * 429 and Retry-After: claim codes on POST as on GET (per IP and per account), share-link passwords
 * (per link and per IP), sign-up (per IP). The API runs with the default limits (30, 20/30, 20).
 */
let api: TestApi;
beforeAll(async () => {
  api = await startTestApi({ REGISTRATIONS_PER_IP_PER_HOUR: '100000' });
});
afterAll(async () => api?.close());

/** An address no other suite uses (198.18.0.0/15, one of 65,000), so shared counters start at zero. */
const uniqueIp = () => `198.18.${Math.floor(Math.random() * 256)}.${Math.floor(Math.random() * 254) + 1}`;

const expect429 = (res: Response, body: string) => {
  expect(res.status, body).toBe(429);
  expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
  expect(Number(res.headers.get('retry-after'))).toBeLessThanOrEqual(3600);
};

/** A client from its own address, signed up. */
async function signedIn(ip = uniqueIp()): Promise<WebClient> {
  const web = new WebClient(api.url, { 'x-forwarded-for': ip });
  await web.signUp(uniqueEmail('thr'));
  return web;
}

const guess = (i: number) => `ACDEFG${'HJKMNPQRTWXY34679'[Math.floor(i / 17) % 17]}${'HJKMNPQRTWXY34679'[i % 17]}`;

describe('throttles', () => {
  it('40 wrong POST /claim guesses: 429 appears (after 30), and a real code is then refused too', async () => {
    const web = await signedIn();
    const csrf = WebClient.csrfOf((await web.get('/dashboard')).body);
    const statuses: number[] = [];
    let last: { res: Response; body: string } | undefined;
    for (let i = 0; i < 40; i++) {
      last = await web.post('/claim', { csrf, code: guess(i), decision: 'approve' });
      statuses.push(last.res.status);
    }
    expect(statuses.slice(0, 30).every((s) => s === 410)).toBe(true);
    expect(statuses.slice(30).every((s) => s === 429)).toBe(true);
    expect429(last!.res, last!.body);
    // Over the limit the code is not even looked at: a live one is refused as well, on POST and GET.
    const reg = await registerAnonymous(api);
    const claim = await startClaim(api, reg.claim_token);
    const real = await web.post('/claim', { csrf, code: claim.user_code, decision: 'approve' });
    expect429(real.res, real.body);
    expect((await web.get(`/claim?code=${claim.user_code}`)).res.status).toBe(429);
  });

  it('claim-code misses count per account too: the same account from a fresh address is still refused', async () => {
    const ip = uniqueIp();
    const web = await signedIn(ip);
    const csrf = WebClient.csrfOf((await web.get('/dashboard')).body);
    for (let i = 0; i < 30; i++) await web.get(`/claim?code=${guess(i)}`);
    const moved = new WebClient(api.url, { 'x-forwarded-for': uniqueIp() });
    moved.cookie = web.cookie;
    const res = await moved.post('/claim', { csrf, code: guess(99), decision: 'approve' });
    expect429(res.res, res.body);
    // Another account from that fresh address is not affected.
    const other = new WebClient(api.url, moved.headers);
    await other.signUp(uniqueEmail('thr-other'));
    expect((await other.get(`/claim?code=${guess(98)}`)).res.status).toBe(404);
  });

  it('wrong share-link passwords: 429 per link (after 20, whatever the address) and per address (after 30, whatever the link)', async () => {
    const owner = await createTenant(api.ctx);
    await fetch(`${api.url}/v0/artifacts/pw/doc.md`, { method: 'PUT', headers: owner.auth, body: 'secret' });
    const mint = async () => {
      const res = await fetch(`${api.url}/v0/shares`, {
        method: 'POST',
        headers: { ...owner.auth, 'content-type': 'application/json' },
        body: JSON.stringify({ resource: 'pw/doc.md', password: 'open sesame' }),
      });
      expect(res.status).toBe(201);
      return (await res.json()).share_key as string;
    };
    const tryPassword = async (key: string, password: string, ip = uniqueIp()) => {
      const web = new WebClient(api.url, { 'x-forwarded-for': ip });
      const form = await web.get(`/s/${key}`);
      expect(form.res.status).toBe(401);
      return web.post(`/s/${key}`, { csrf: WebClient.csrfOf(form.body), password });
    };

    // Per link: 20 wrong tries from 20 addresses, then even the right password waits.
    const key = await mint();
    for (let i = 0; i < 20; i++) expect((await tryPassword(key, `wrong ${i}`)).res.status).toBe(401);
    const locked = await tryPassword(key, 'open sesame');
    expect429(locked.res, locked.body);

    // Per address: 30 wrong tries spread over three links, then a fourth link is refused for it.
    const ip = uniqueIp();
    const links = [await mint(), await mint(), await mint()];
    for (let i = 0; i < 30; i++) expect((await tryPassword(links[i % 3], `wrong ${i}`, ip)).res.status).toBe(401);
    const fresh = await mint();
    const refused = await tryPassword(fresh, 'open sesame', ip);
    expect429(refused.res, refused.body);
    // The right password from elsewhere: 303 back to the link, with an unlock that opens its bytes too.
    const elsewhere = await tryPassword(fresh, 'open sesame');
    expect(elsewhere.res.status).toBe(303);
    const unlock = elsewhere.res.headers
      .getSetCookie()
      .find((c) => c.startsWith('ad_share_unlock='))!
      .split(';')[0];
    const opened = await fetch(`${api.url}/s/${fresh}?raw=1`, { headers: { cookie: unlock } });
    expect(opened.status).toBe(200);
    expect(await opened.text()).toContain('secret');
  });

  it('sign-ups: 20 an hour per address, then 429', async () => {
    const ip = uniqueIp();
    const statuses: number[] = [];
    let last: { res: Response; body: string } | undefined;
    for (let i = 0; i < 21; i++) {
      const web = new WebClient(api.url, { 'x-forwarded-for': ip });
      const form = await web.get('/auth/signup');
      last = await web.post('/auth/signup', {
        csrf: WebClient.csrfOf(form.body),
        email: uniqueEmail(`bulk${i}`),
        password: 'long enough password',
      });
      statuses.push(last.res.status);
    }
    expect(statuses.slice(0, 20).every((s) => s === 200)).toBe(true);
    expect429(last!.res, last!.body);
  });
});
