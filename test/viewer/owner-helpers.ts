import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import type { TestApi } from '../helpers/api.js';
import { confirmSignUpInBrowser, launchBrowser } from '../helpers/browser.js';
import { bearer, registerAnonymous, startClaim, startIdentityApi, uniqueEmail } from '../identity/helpers.js';

/** Browser journeys of a drive's owner: a claimed drive signed in on a page, a key minted there, uploads over /v0. */

/**
 * A browser suite's stack: an API with the identity limits lifted and one Chromium, started before the suite's tests
 * (handed to `use`) and closed after them.
 */
export function useBrowserSuite(use: (suite: { api: TestApi; browser: Browser }) => void): void {
  let api: TestApi | undefined;
  let browser: Browser | undefined;
  beforeAll(async () => {
    api = await startIdentityApi();
    browser = await launchBrowser();
    use({ api, browser });
  });
  afterAll(async () => {
    await browser?.close();
    await api?.close();
  });
}

export const OWNER_PASSWORD = 'a long enough password';

/** A claimed drive with its owner signed in on `page`; returns the drive id (and the owner's email in `account`). */
export async function claimedOwner(api: TestApi, page: Page, account: { email?: string } = {}): Promise<string> {
  const reg = await registerAnonymous(api);
  const claim = await startClaim(api, reg.claim_token);
  await page.goto(claim.verification_uri_complete);
  await page.getByRole('link', { name: 'Create one' }).click();
  account.email = uniqueEmail('viewer');
  await page.getByLabel('Email').fill(account.email);
  await page.getByLabel('Password').fill(OWNER_PASSWORD);
  await page.getByRole('button', { name: 'Create account' }).click();
  await confirmSignUpInBrowser(page, api.url, account.email, OWNER_PASSWORD);
  await page.waitForURL(`**/claim?code=${claim.user_code}`);
  await page.getByRole('button', { name: 'Approve' }).click();
  await expect.poll(() => page.getByRole('status').textContent()).toMatch(/Approved/);
  return reg.drive_id;
}

export async function mintKey(api: TestApi, page: Page): Promise<string> {
  await page.goto(`${api.url}/settings/api-keys`);
  await page.getByLabel('Label').fill('browser');
  await page.getByRole('button', { name: 'Mint API key' }).click();
  return (await page.getByTestId('new-api-key').textContent())!.trim();
}

export async function put(
  api: TestApi,
  key: string,
  path: string,
  body: string | Uint8Array<ArrayBuffer>,
  type: string,
  extra: Record<string, string> = {},
) {
  const res = await fetch(`${api.url}/v0/artifacts/${path}`, {
    method: 'PUT',
    headers: { ...bearer(key), 'content-type': type, ...extra },
    body,
  });
  expect(res.status, await res.clone().text()).toBeLessThan(300);
  return res.json() as Promise<{ art_id: string; url: string; version_number: number }>;
}

/** Waits until the drive's index answers `q` on `/v0/search` or `/v0/find` (indexing runs after the write commits). */
export async function untilIndexed(api: TestApi, key: string, route: 'search' | 'find', q: string): Promise<void> {
  await expect
    .poll(
      async () =>
        (await (await fetch(`${api.url}/v0/${route}?q=${encodeURIComponent(q)}`, { headers: bearer(key) })).json())
          .items?.length,
      { timeout: 60_000, interval: 500 },
    )
    .toBeGreaterThan(0);
}
