import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApi } from '../helpers/api.js';
import { confirmSignUpInBrowser, launchBrowser } from '../helpers/browser.js';
import { startMailbox, type Mailbox } from '../helpers/mailbox.js';
import { bearer, registerAnonymous, startClaim, startIdentityApi, tokenRequest, uniqueEmail } from './helpers.js';

let api: TestApi;
let browser: Browser;
let mailbox: Mailbox;
beforeAll(async () => {
  mailbox = await startMailbox();
  api = await startIdentityApi({ SMTP_URL: mailbox.url });
  browser = await launchBrowser();
}, 600_000); // the first run may install Chromium
afterAll(async () => {
  await browser?.close();
  await api?.close();
  await mailbox?.close();
});

describe('claim ceremony in a real browser', () => {
  it('a human follows verification_uri_complete, creates an account, approves; the agent then gets its full assertion', async () => {
    const reg = await registerAnonymous(api);
    const claim = await startClaim(api, reg.claim_token);
    const email = uniqueEmail('browser');
    const page = await browser.newPage();
    const cspViolations: string[] = [];
    page.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) cspViolations.push(m.text());
    });

    await page.goto(claim.verification_uri_complete);
    expect(new URL(page.url()).pathname).toBe('/auth/login');
    await page.getByRole('link', { name: 'Create one' }).click();
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill('a long enough password');
    await page.getByRole('button', { name: 'Create account' }).click();
    // The mailed link confirms the address and signs in (with the password chosen), then returns to the claim.
    await confirmSignUpInBrowser(page, api.url, email, 'a long enough password');

    // Back on the verification page, with the code shown for comparison.
    await page.waitForURL(`**/claim?code=${claim.user_code}`);
    expect(await page.getByTestId('user-code').textContent()).toBe(claim.user_code);
    const cookies = await page.context().cookies();
    const session = cookies.find((c) => c.name === 'ad_session')!;
    expect(session.httpOnly).toBe(true);
    expect(session.sameSite).toBe('Lax');

    await page.getByRole('button', { name: 'Approve' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toMatch(/Approved/);

    const res = await tokenRequest(api, { grant_type: 'claim', claim_token: reg.claim_token });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.scope).toBe('full');
    const meOf = async () => (await fetch(`${api.url}/v0/drives/me`, { headers: bearer(body.access_token) })).json();
    // The address was confirmed before the claim, so it is the drive's email at once.
    expect(await meOf()).toMatchObject({ drive_id: reg.drive_id, email, claimed: true });

    // The owner mints an API key on the dashboard; it is shown once and works on /v0.
    await page.goto(`${api.url}/dashboard`);
    await page.getByLabel('Label').fill('ci');
    await page.getByRole('button', { name: 'Mint API key' }).click();
    const key = (await page.getByTestId('new-api-key').textContent())!.trim();
    expect(key).toMatch(/^ad_live_/);
    expect((await fetch(`${api.url}/v0/drives/me`, { headers: bearer(key) })).status).toBe(200);
    await page.goto(`${api.url}/dashboard`); // the key is never shown again
    expect(await page.content()).not.toContain(key);

    // Revoking asks first: the row's Revoke opens the question, its button revokes.
    const row = page.getByRole('row', { name: key.slice(0, 14) });
    await row.locator('summary', { hasText: 'Revoke' }).click();
    await row.getByRole('button', { name: 'Yes, revoke' }).click();
    await page.waitForURL('**/dashboard');
    expect((await fetch(`${api.url}/v0/drives/me`, { headers: bearer(key) })).status).toBe(401);
    expect(cspViolations).toEqual([]);
    await page.close();
  });
});
