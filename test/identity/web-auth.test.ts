import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApi } from '../helpers/api.js';
import { safeReturnTo } from '../../src/web/format.js';
import { esc, html } from '../../src/web/html.js';
import { randomIp, startIdentityApi, uniqueEmail, WebClient } from './helpers.js';

let api: TestApi;
beforeAll(async () => {
  api = await startIdentityApi({ LOGIN_FAILURES_PER_IP_PER_HOUR: '3' });
});
afterAll(async () => api?.close());

describe('human sign-in', () => {
  it('signs up, signs out, signs back in; the password is stored as scrypt only', async () => {
    const email = uniqueEmail('human');
    // An address of its own: failed sign-ins of other suites from 127.0.0.1 count against the same per-IP limit.
    const web = new WebClient(api.url, { 'x-forwarded-for': randomIp() });
    await web.signUp(email, 'a very good password');
    const [row] = await api.ctx.orm.em.fork().execute('select password_hash from human_users where email = ?', [email]);
    expect(row.password_hash).toMatch(/^scrypt\$32768\$8\$1\$/);
    expect(row.password_hash).not.toContain('a very good password');

    const dash = await web.get('/dashboard');
    expect(dash.body).toContain(email);
    const out = await web.post('/auth/logout', { csrf: WebClient.csrfOf(dash.body) });
    expect(out.res.status).toBe(303);
    expect((await web.get('/dashboard')).res.status).toBe(303);

    const login = await web.get('/auth/login?return_to=/claim');
    const ok = await web.post('/auth/login', {
      csrf: WebClient.csrfOf(login.body),
      email: email.toUpperCase(),
      password: 'a very good password',
      return_to: '/claim',
    });
    expect(ok.res.status).toBe(303);
    expect(ok.res.headers.get('location')).toBe('/claim');
  });

  it('refuses duplicates, weak passwords, bad emails and wrong passwords, without creating accounts', async () => {
    const email = uniqueEmail('dupe');
    await new WebClient(api.url).signUp(email);
    const web = new WebClient(api.url);
    const form = await web.get('/auth/signup');
    const csrf = WebClient.csrfOf(form.body);
    const cases: [Record<string, string>, number, RegExp][] = [
      // A taken address mails its owner a link instead (issue 37): the answer says nothing about the account.
      [{ email, password: 'another password' }, 200, /Check your mail/],
      [{ email: uniqueEmail('weak'), password: 'short' }, 400, /at least 10/],
      [{ email: 'not-an-email', password: 'long enough password' }, 400, /valid email/],
      [{ email: `${'x'.repeat(400)}@example.test`, password: 'long enough password' }, 400, /valid email/],
    ];
    for (const [fields, status, message] of cases) {
      const res = await web.post('/auth/signup', { csrf, ...fields });
      expect(res.res.status).toBe(status);
      expect(res.body).toMatch(message);
    }
    const noCsrfEmail = uniqueEmail('nocsrf');
    const noCsrf = await web.post('/auth/signup', { email: noCsrfEmail, password: 'long enough password' });
    expect(noCsrf.res.status).toBe(403);
    // Exactly the one account that signed up first; none of the refused ones exist.
    const emails = [email, noCsrfEmail, ...cases.map(([f]) => f.email.toLowerCase())];
    const rows = await api.ctx.orm.em
      .fork()
      .execute(`select email from human_users where email in (${emails.map(() => '?').join(', ')})`, emails);
    expect(rows.map((r) => r.email)).toEqual([email]);
  });

  it('limits failed sign-ins per client IP', async () => {
    const web = new WebClient(api.url, { 'x-forwarded-for': randomIp() });
    const form = await web.get('/auth/login');
    const csrf = WebClient.csrfOf(form.body);
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await web.post('/auth/login', { csrf, email: uniqueEmail('nobody'), password: 'wrong password' });
      statuses.push(res.res.status);
    }
    expect(statuses).toEqual([401, 401, 401, 429]);
  });

  it('limits unknown claim codes per client IP', async () => {
    const web = new WebClient(api.url, { 'x-forwarded-for': randomIp() });
    await web.signUp(uniqueEmail('guesser'));
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await web.get(`/claim?code=ZZZZZZZ${i}`)).res.status);
    expect(statuses).toEqual([404, 404, 404, 429]);
  });

  it('escapes what it renders and follows only same-site return paths', async () => {
    expect(esc(`<script>"x"&'y'</script>`)).toBe('&lt;script&gt;&quot;x&quot;&amp;&#39;y&#39;&lt;/script&gt;');
    expect(html`<p>${'<b>'}</p>`.value).toBe('<p>&lt;b&gt;</p>');
    const web = new WebClient(api.url);
    const page = await web.get('/auth/login?return_to="><script>alert(1)</script>');
    expect(page.body).not.toContain('<script>');
    for (const bad of ['//evil.test', 'https://evil.test', '/\\evil.test', 'javascript:alert(1)'])
      expect(safeReturnTo(bad)).toBe('/dashboard');
    expect(safeReturnTo('/claim?code=ABCDEFGH')).toBe('/claim?code=ABCDEFGH');
  });
});
