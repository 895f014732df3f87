import type { Browser, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { TestApi } from '../helpers/api.js';
import { confirmSignUpInBrowser } from '../helpers/browser.js';
import { bearer, registerAnonymous, startClaim, uniqueEmail } from '../identity/helpers.js';
import { createDriveForAccount } from '../../src/identity/mcp-oauth.js';
import { mintOwnerApiKey } from '../../src/identity/accounts.js';
import { OWNER_PASSWORD, put, useBrowserSuite } from './owner-helpers.js';

/**
 * Issue 55, part 1: a person with two drives, one made by the MCP consent page (its domain operation,
 * createDriveForAccount) and one by the CLI's claim, sees both on the web: the nav's switcher opens each drive's
 * pages by clicking, every page of either drive answers by its URL, and a drive's name (PATCH /v0/drives/me) is shown
 * in the switcher.
 */
let api: TestApi;
let browser: Browser;
useBrowserSuite((suite) => ({ api, browser } = suite));

/** Signs a new person up on the claim page; before they approve, the consent page's operation gives them a drive. */
async function personWithTwoDrives(page: Page) {
  const reg = await registerAnonymous(api);
  const claim = await startClaim(api, reg.claim_token);
  await page.goto(claim.verification_uri_complete);
  await page.getByRole('link', { name: 'Create one' }).click();
  const email = uniqueEmail('drives');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(OWNER_PASSWORD);
  await page.getByRole('button', { name: 'Create account' }).click();
  await confirmSignUpInBrowser(page, api.url, email, OWNER_PASSWORD);
  await page.waitForURL(`**/claim?code=${claim.user_code}`);
  const [user] = await api.ctx.orm.em
    .fork()
    .execute<{ id: string }[]>(`select id from human_users where lower(email) = lower(?)`, [email]);
  const [consentDrive] = await createDriveForAccount(api.ctx, user.id);
  // The claim page says which drive approving adds, beside the one the person has.
  await page.reload();
  expect(await page.getByTestId('claim-adds').textContent()).toContain(reg.drive_id);
  expect(await page.getByTestId('claim-existing').textContent()).toContain(consentDrive.id);
  await page.getByRole('button', { name: 'Approve' }).click();
  await expect.poll(() => page.getByRole('status').textContent()).toMatch(/Approved/);
  const keyOf = async (driveId: string) => (await mintOwnerApiKey(api.ctx, user.id, driveId, 'test'))!.key as string;
  return { userId: user.id, consent: consentDrive.id, cli: reg.drive_id, keyOf };
}

describe('every drive of a person, on the web', () => {
  it('opens both drives (consent and CLI claim) from the switcher by clicking; each by its URL; names shown', async () => {
    const page = await browser.newPage();
    const p = await personWithTwoDrives(page);
    expect(p.consent).not.toBe(p.cli);
    const consentKey = await p.keyOf(p.consent);
    const cliKey = await p.keyOf(p.cli);
    await put(api, consentKey, 'claude/written-by-claude.md', '# From Claude Code', 'text/markdown');
    await put(api, cliKey, 'cli/written-by-cli.md', '# From the CLI', 'text/markdown');

    // The consent drive gets a name, as a person writes it; GET /v0/drives/me shows it.
    const named = await fetch(`${api.url}/v0/drives/me`, {
      method: 'PATCH',
      headers: { ...bearer(consentKey), 'content-type': 'application/json' },
      body: JSON.stringify({ name: '  Claude Code  (Zoë)  ' }),
    });
    expect(named.status, await named.clone().text()).toBe(200);
    expect((await named.json()).name).toBe('Claude Code (Zoë)');
    const me = await (await fetch(`${api.url}/v0/drives/me`, { headers: bearer(cliKey) })).json();
    expect(me).toMatchObject({ drive_id: p.cli, name: null });
    const refused = await fetch(`${api.url}/v0/drives/me`, {
      method: 'PATCH',
      headers: { ...bearer(cliKey), 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'a\u0007b' }),
    });
    expect(refused.status).toBe(400);

    await page.goto(`${api.url}/dashboard`);
    const switcher = page.getByTestId('drive-switcher');
    await switcher.locator('summary').click();
    await expect.poll(() => switcher.textContent()).toMatch(/Claude Code \(Zoë\)/);
    expect(await switcher.textContent()).toContain(p.cli);
    expect(await switcher.textContent()).toMatch(/claimed/);
    expect(await switcher.textContent()).toMatch(/last written by .*an API key/);

    // Click the consent drive: its files.
    await switcher.getByRole('link', { name: 'Claude Code (Zoë)' }).click();
    await page.waitForURL(`**/${p.consent}/`);
    expect(await page.getByRole('link', { name: 'claude' }).isVisible()).toBe(true);
    expect(await page.getByTestId('current-drive').textContent()).toBe('Claude Code (Zoë)');

    // Click the CLI drive: its files, then its runs from the nav (the owner's pages follow the drive on screen).
    await page.getByTestId('drive-switcher').locator('summary').click();
    await page.getByTestId('drive-switcher').getByRole('link', { name: p.cli }).click();
    await page.waitForURL(`**/${p.cli}/`);
    expect(await page.getByRole('link', { name: 'cli' }).isVisible()).toBe(true);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Runs' }).click();
    await page.waitForURL(`**/activity?drive=${p.cli}`);
    expect(await page.locator('main').textContent()).toMatch(/written-by-cli|1 file|created/i);

    // Every page of either drive answers by its URL, whichever drive was opened last.
    for (const [drive, path] of [
      [p.consent, 'claude/written-by-claude.md'],
      [p.cli, 'cli/written-by-cli.md'],
    ]) {
      expect((await page.goto(`${api.url}/${drive}/${path}`))!.status()).toBe(200);
      expect((await page.goto(`${api.url}/trash?drive=${drive}`))!.status()).toBe(200);
    }
    // Another person's drive is not found.
    const stranger = await registerAnonymous(api);
    expect((await page.goto(`${api.url}/trash?drive=${stranger.drive_id}`))!.status()).toBe(404);
    expect((await page.goto(`${api.url}/${stranger.drive_id}/`))!.status()).toBe(404);

    // The name set on the web's Settings page is the switcher's.
    await page.goto(`${api.url}/settings?drive=${p.cli}`);
    await page.getByLabel('Name').fill('CLI drive');
    await page.getByRole('button', { name: 'Save name' }).click();
    await expect.poll(() => page.getByTestId('notice').textContent()).toMatch(/CLI drive/);
    expect(await page.getByTestId('current-drive').textContent()).toBe('CLI drive');
    await page.close();
  });
});
