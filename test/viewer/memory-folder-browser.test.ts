import type { Browser } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { TestApi } from '../helpers/api.js';
import { bearer } from '../identity/helpers.js';
import { claimedOwner, useBrowserSuite } from './owner-helpers.js';

/**
 * Issue 57 in headless Chromium: a person mints an API key with a memory folder on the dashboard's key form; a folder
 * that breaks the rule is refused on a page that says why, and the key's memory tool then writes under its folder.
 */
let api: TestApi;
let browser: Browser;
useBrowserSuite((suite) => ({ api, browser } = suite));

describe('the key form’s memory folder', () => {
  it('refuses a folder under _wiki/, mints a key with a good one, and the memory tool writes there', async () => {
    const page = await browser.newPage();
    await claimedOwner(api, page);
    await page.goto(`${api.url}/settings/api-keys`);
    await page.getByLabel('Label').fill('memory');
    await page.getByLabel('Memory folder').fill('_wiki/mem');
    const refused = page.waitForResponse(
      (r) => r.url().endsWith('/settings/api-keys') && r.request().method() === 'POST',
    );
    await page.getByRole('button', { name: 'Mint API key' }).click();
    expect((await refused).status()).toBe(422);
    expect(await page.locator('p.error').textContent()).toContain('not under _wiki/');

    await page.goto(`${api.url}/settings/api-keys`);
    await page.getByLabel('Label').fill('memory');
    await page.getByLabel('Memory folder').fill('agents/web/mem');
    await page.getByRole('button', { name: 'Mint API key' }).click();
    const key = (await page.getByTestId('new-api-key').textContent())!.trim();
    expect(await page.locator('table').textContent()).toContain('agents/web/mem/');

    const wrote = await fetch(`${api.url}/v0/memory`, {
      method: 'POST',
      headers: { ...bearer(key), 'content-type': 'application/json' },
      body: JSON.stringify({ command: 'create', path: '/memories/web.md', file_text: 'w\n' }),
    });
    expect(((await wrote.json()) as { result: string }).result).toBe('File created successfully at: /memories/web.md');
    const meta = await fetch(`${api.url}/v0/artifacts/agents/web/mem/web.md/meta`, { headers: bearer(key) });
    expect(meta.status).toBe(200);
    await page.close();
  });
});
