import type { Browser } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { TestApi } from '../helpers/api.js';
import { bearer } from '../identity/helpers.js';
import { claimedOwner, mintKey, put, useBrowserSuite } from './owner-helpers.js';

/**
 * Issue 55 in headless Chromium: names as people type them (New folder, rename, copy) are mapped by the name rule and
 * the notice says so; the listing shows the kept name beside the path; a folder only paths imply shares in one step.
 */
let api: TestApi;
let browser: Browser;
useBrowserSuite((suite) => ({ api, browser } = suite));

const MEETING = 'Meeting notes (draft).md';

describe('web: names and implied folders', () => {
  it('New folder, rename and copy map a person’s name and say so; the listing shows the kept name', async () => {
    const page = await browser.newPage();
    const driveId = await claimedOwner(api, page);
    const key = await mintKey(api, page);
    await put(api, key, 'one.md', '# one\n', 'text/markdown');
    await put(api, key, 'kept/Meeting-notes-draft.md', '# kept\n', 'text/markdown', {
      'x-drive-filename': `UTF-8''${encodeURIComponent(MEETING)}`,
    });

    await page.goto(`${api.url}/${driveId}/`);
    await page.getByText('New folder', { exact: true }).click();
    await page.getByLabel('Name', { exact: true }).fill('Web uploads (Zoë)');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.waitForURL(`**/${driveId}/Web-uploads-Zoe/`);
    expect(await page.getByTestId('notice').textContent()).toContain('Web uploads (Zoë) → Web-uploads-Zoe');

    await page.goto(`${api.url}/${driveId}/`);
    const listing = page.getByTestId('folder-listing');
    const row = (name: string) => listing.getByRole('row', { name: new RegExp(name) });
    await row('one.md').locator('summary').click();
    await row('one.md').getByLabel('Rename to').fill(MEETING);
    await row('one.md').getByRole('button', { name: 'Rename' }).click();
    await page.waitForURL(`**/${driveId}/`);
    expect(await page.getByTestId('notice').textContent()).toContain(`${MEETING} → Meeting-notes-draft.md`);

    await row('Meeting-notes-draft.md').locator('summary').click();
    await row('Meeting-notes-draft.md').getByLabel('Copy to').fill(`Web uploads (Zoë)/${MEETING}`);
    await row('Meeting-notes-draft.md').getByRole('button', { name: 'Copy' }).click();
    await page.waitForURL(`**/${driveId}/`);
    expect(await page.getByTestId('notice').textContent()).toContain(
      'Copied to Web-uploads-Zoe/Meeting-notes-draft.md',
    );
    const copied = await fetch(`${api.url}/v0/artifacts/Web-uploads-Zoe/Meeting-notes-draft.md/meta`, {
      headers: bearer(key),
    });
    expect(copied.status).toBe(200);

    await page.goto(`${api.url}/${driveId}/kept/`);
    expect(await page.getByTestId('kept-name').textContent()).toContain(MEETING);
    await page.close();
  });

  it('the Share panel of a folder only paths imply makes a link in one step', async () => {
    const page = await browser.newPage();
    const driveId = await claimedOwner(api, page);
    const key = await mintKey(api, page);
    await put(api, key, 'docs/a.md', '# a\n', 'text/markdown');
    const before = await fetch(`${api.url}/v0/folders/docs/meta`, { headers: bearer(key) });
    expect(await before.json()).toMatchObject({ implied: true, fld_id: null });

    await page.goto(`${api.url}/${driveId}/docs/`);
    await page.getByTestId('share-control').locator('summary').click();
    await page.getByRole('button', { name: 'Create link' }).click();
    await page.waitForURL(`**/${driveId}/docs/**`);
    expect(await page.getByTestId('new-share-link').textContent()).toContain('/s/');
    const after = await (await fetch(`${api.url}/v0/folders/docs/meta`, { headers: bearer(key) })).json();
    expect(after).toMatchObject({ implied: false, fld_id: expect.stringMatching(/^fld_/) });

    // The public switch of an implied folder makes its record and the anyone grant in one step too.
    await put(api, key, 'pub/b.md', '# b\n', 'text/markdown');
    await page.goto(`${api.url}/${driveId}/pub/`);
    await page.getByTestId('share-control').locator('summary').click();
    await page.getByRole('button', { name: 'Make public' }).click();
    await page.waitForURL(`**/${driveId}/pub/**`);
    expect(await page.getByTestId('share-visibility').textContent()).toContain('Public');
    await page.close();
  });
});
