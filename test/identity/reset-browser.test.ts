import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../helpers/browser.js';
import { startMailbox, type Mailbox } from '../helpers/mailbox.js';
import type { TestApi } from '../helpers/api.js';
import { startIdentityApi, uniqueEmail, WebClient } from './helpers.js';

/**
 * "Forgot password" as a person meets it, in Chromium: the form, the mailed link, a new password, signed in on the
 * dashboard; the page's CSP and the redirects are the browser's to enforce (issue 37, finding 4).
 */
let api: TestApi;
let mailbox: Mailbox;
let browser: Browser;
beforeAll(async () => {
  mailbox = await startMailbox();
  api = await startIdentityApi({ SMTP_URL: mailbox.url });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await api?.close();
  await mailbox?.close();
});

describe('forgot password in a browser', () => {
  it('mails a link; following it sets the password and signs in; the old password opens nothing', async () => {
    const email = uniqueEmail('forgot');
    await new WebClient(api.url, { 'x-forwarded-for': '192.0.2.201' }).signUp(email, 'first password here');
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('console', (m) => {
      if (/Content Security Policy|Refused/i.test(m.text())) problems.push(m.text());
    });
    await page.goto(`${api.url}/auth/forgot`);
    const before = mailbox.messages.length;
    await page.fill('input[name="email"]', email);
    await Promise.all([page.waitForLoadState('load'), page.click('button[type="submit"]')]);
    const mail = await mailbox.waitFor(email, before);
    const link = /https?:\/\/[^/\s]+(\/auth\/reset\?token=adrs_[\w-]+)/.exec(mail.text);
    expect(link, mail.text).not.toBeNull();

    await page.goto(`${api.url}${link![1]}`);
    await page.fill('input[name="password"]', 'second password here');
    await Promise.all([page.waitForURL(`${api.url}/dashboard`), page.click('button[type="submit"]')]);
    expect(new URL(page.url()).pathname).toBe('/dashboard');
    expect(problems).toEqual([]);

    const old = new WebClient(api.url, { 'x-forwarded-for': '192.0.2.202' });
    const form = await old.get('/auth/login');
    const refused = await old.post('/auth/login', {
      csrf: WebClient.csrfOf(form.body),
      email,
      password: 'first password here',
      return_to: '/dashboard',
    });
    expect(refused.res.status).toBe(401);
    await page.close();
  });
});
