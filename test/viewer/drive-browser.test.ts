import type { Browser, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { TestApi } from '../helpers/api.js';
import { bearer } from '../identity/helpers.js';
import { screenshot } from './browser.js';
import { claimedOwner, mintKey, untilIndexed, put, useBrowserSuite } from './owner-helpers.js';

/**
 * Issue 27 in headless Chromium: a drive a person can live in. Browse folders implied by paths, manage files from
 * the pages (upload, rename, move, delete with undo, restore, history with a diff), search, share by link with a
 * password, public means the current version only.
 */
let api: TestApi;
let browser: Browser;
useBrowserSuite((suite) => ({ api, browser } = suite));

const SHOTS = 'web-screenshots';

async function owner(): Promise<{ page: Page; driveId: string; key: string }> {
  const page = await browser.newPage();
  const driveId = await claimedOwner(api, page);
  return { page, driveId, key: await mintKey(api, page) };
}

describe('a drive a person can live in', () => {
  it('clicks from the root to a file three implied folders deep; crumbs, sizes, sort and activity links work', async () => {
    const { page, driveId, key } = await owner();
    await put(api, key, 'a/b/c/deep/x.md', '# Deep file\n\nFound it.', 'text/markdown');
    await put(api, key, 'docs/report.md', `# Report\n\n${'words '.repeat(400)}`, 'text/markdown');
    await put(api, key, 'top.txt', 'at the root', 'text/plain');

    await page.goto(`${api.url}/${driveId}/`);
    const listing = page.getByTestId('folder-listing');
    expect(await listing.textContent()).toMatch(/top\.txt/);
    expect(await listing.textContent()).toMatch(/docs/);
    for (const name of ['a', 'b', 'c', 'deep']) {
      await listing.getByRole('link', { name, exact: true }).click();
      await page.waitForURL(`**/${name}/`);
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(name);
    }
    await listing.getByRole('link', { name: 'x.md' }).click();
    await page.waitForURL(`**/${driveId}/a/b/c/deep/x.md`);
    expect(await page.getByRole('heading', { name: 'Deep file' }).isVisible()).toBe(true);

    // Every crumb is a page.
    await page.getByTestId('crumbs').getByRole('link', { name: 'b' }).click();
    await page.waitForURL(`**/${driveId}/a/b/`);
    expect(await page.getByTestId('folder-listing').textContent()).toMatch(/c/);
    await page.getByTestId('crumbs').getByRole('link', { name: 'Files' }).click();
    await page.waitForURL(`**/${driveId}/`);

    // Sizes for people; sort by size puts the big report folder first.
    await page.goto(`${api.url}/${driveId}/docs/`);
    expect(await page.getByTestId('folder-listing').textContent()).toMatch(/\d(\.\d)? KB/);
    await page.goto(`${api.url}/${driveId}/?sort=size`);
    const firstRow = page.getByTestId('folder-listing').locator('tbody tr').first();
    expect(await firstRow.textContent()).toMatch(/docs/);

    // Activity entries link to what they are about.
    await page.goto(`${api.url}/dashboard`);
    await page.getByTestId('activity').getByRole('link', { name: 'docs/report.md' }).click();
    await page.waitForURL(`**/${driveId}/docs/report.md`);
    await page.close();
  });

  it('uploads several files, renames, moves, deletes with undo, restores from the trash; history shows a diff', async () => {
    const { page, driveId, key } = await owner();
    await put(api, key, 'work/seed.txt', 'seed', 'text/plain');
    await page.goto(`${api.url}/${driveId}/work/`);
    await page.getByText('Upload', { exact: true }).first().click();
    await page.locator('input[type=file]').setInputFiles([
      { name: 'one.md', mimeType: 'text/markdown', buffer: Buffer.from('# One\n') },
      { name: 'two notes.txt', mimeType: 'text/plain', buffer: Buffer.from('line 1\nline 2\n') },
    ]);
    await page.getByRole('button', { name: 'Upload', exact: true }).click();
    await page.waitForURL(`**/${driveId}/work/`);
    expect(await page.getByTestId('notice').textContent()).toMatch(/Uploaded 2 files/);
    const listing = page.getByTestId('folder-listing');
    expect(await listing.textContent()).toMatch(/two-notes\.txt/);

    // Drag-and-drop (the page's one first-party script) submits the same form.
    await page.getByText('Upload', { exact: true }).first().click();
    expect(await page.locator('[data-drop-hint]').isVisible()).toBe(true);
    const dropped = await page.evaluateHandle(() => {
      const dt = new DataTransfer();
      dt.items.add(new File(['dropped bytes'], 'dropped.txt', { type: 'text/plain' }));
      return dt;
    });
    const uploaded = page.waitForResponse((r) => r.url().endsWith('/files/upload'));
    await page.dispatchEvent('main', 'drop', { dataTransfer: dropped });
    expect((await uploaded).status()).toBe(303);
    await expect.poll(() => page.getByTestId('notice').textContent()).toMatch(/Uploaded work\/dropped\.txt/);

    // Rename one.md → renamed.md.
    const row = (name: string) => listing.getByRole('row', { name: new RegExp(name) });
    await row('one.md').locator('summary').click();
    await row('one.md').getByLabel('Rename to').fill('renamed.md');
    await row('one.md').getByRole('button', { name: 'Rename' }).click();
    await page.waitForURL(`**/${driveId}/work/`);
    expect(await listing.textContent()).toMatch(/renamed\.md/);

    // New folder, then move two-notes.txt into it.
    await page.getByText('New folder', { exact: true }).click();
    await page.getByLabel('Name', { exact: true }).fill('archive');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.waitForURL(`**/${driveId}/work/archive/`);
    await page.goto(`${api.url}/${driveId}/work/`);
    await row('two-notes').locator('summary').click();
    await row('two-notes').getByLabel('Move to folder').fill('work/archive');
    await row('two-notes').getByRole('button', { name: 'Move' }).click();
    await page.waitForURL(`**/${driveId}/work/`);
    expect(
      (await fetch(`${api.url}/v0/artifacts/work/archive/two-notes.txt/meta`, { headers: bearer(key) })).status,
    ).toBe(200);

    // Delete with undo.
    await row('renamed.md').locator('summary').click();
    await row('renamed.md')
      .getByRole('button', { name: /Delete/ })
      .click();
    await page.waitForURL(`**/${driveId}/work/`);
    expect(await page.getByTestId('notice').textContent()).toMatch(/trash/);
    expect(await listing.textContent()).not.toMatch(/renamed\.md/);
    await page.getByRole('button', { name: 'Undo' }).click();
    await page.waitForURL(`**/${driveId}/work/`);
    expect(await listing.textContent()).toMatch(/renamed\.md/);

    // Delete from the file page, restore from the trash.
    await page.goto(`${api.url}/${driveId}/work/renamed.md`);
    await page.getByTestId('file-delete').click();
    await page.waitForURL(`**/${driveId}/work/`);
    await page.goto(`${api.url}/trash`);
    await page.getByRole('row', { name: 'work/renamed.md' }).getByRole('button', { name: 'Restore' }).click();
    await page.waitForURL(`**/${driveId}/work/renamed.md`);

    // A second version from the file page; the history page diffs them.
    await page.goto(`${api.url}/${driveId}/work/seed.txt`);
    await page.getByText('New version', { exact: true }).click();
    await page
      .getByLabel('File', { exact: true })
      .setInputFiles({ name: 'whatever.txt', mimeType: 'text/plain', buffer: Buffer.from('seed\ngrown\n') });
    await page.getByRole('button', { name: 'Upload as a new version' }).click();
    await page.waitForURL(`**/${driveId}/work/seed.txt`);
    expect(await page.getByTestId('notice').textContent()).toMatch(/Uploaded work\/seed\.txt/);
    expect(await page.getByTestId('version').textContent()).toMatch(/version 2/);
    await page.getByRole('link', { name: 'History' }).click();
    await page.getByRole('link', { name: 'Changes from v1' }).click();
    const diff = await page.getByTestId('diff').textContent();
    expect(diff).toMatch(/\+grown/);
    expect(diff).toMatch(/-seed/);
    // The file page links to its activity too.
    await page.goto(`${api.url}/${driveId}/work/seed.txt`);
    await page.getByRole('link', { name: 'Activity' }).click();
    expect(await page.getByTestId('file-activity').textContent()).toMatch(/Updated work\/seed\.txt/);

    // A folder implied by paths renames as a folder.
    await put(api, key, 'drafts/deep/a.md', '# A', 'text/markdown');
    await page.goto(`${api.url}/${driveId}/`);
    await row('drafts').locator('summary').click();
    await row('drafts').getByLabel('Rename to').fill('final');
    await row('drafts').getByRole('button', { name: 'Rename' }).click();
    await page.waitForURL(`**/${driveId}/`);
    expect((await fetch(`${api.url}/v0/artifacts/final/deep/a.md/meta`, { headers: bearer(key) })).status).toBe(200);
    await page.close();
  });

  it('search finds a file by a word in it, with the matched text, linked', async () => {
    const { page, driveId, key } = await owner();
    await put(api, key, 'notes/zebra.md', '# Field notes\n\nThe quixotic zebrafinch sang at dawn.', 'text/markdown');
    await put(api, key, 'notes/other.md', '# Other\n\nNothing to see.', 'text/markdown');
    await untilIndexed(api, key, 'search', 'zebrafinch');
    await page.goto(`${api.url}/${driveId}/`);
    await page.getByRole('searchbox', { name: 'Search your drive' }).fill('zebrafinch');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForURL('**/search?q=zebrafinch&drive=*');
    const files = page.getByTestId('search-files');
    expect(await files.locator('mark').first().textContent()).toMatch(/zebrafinch/i);
    expect(await files.textContent()).not.toMatch(/other\.md/);
    await screenshot(page, SHOTS, 'search-results');
    await files.getByRole('link', { name: /notes\/zebra\.md/ }).click();
    await page.waitForURL(`**/${driveId}/notes/zebra.md`);
    expect(await page.getByRole('heading', { name: 'Field notes' }).isVisible()).toBe(true);
    await page.close();
  });

  it('shares by link with a password: the raw bytes and the download after one correct password', async () => {
    const { page, driveId, key } = await owner();
    await put(api, key, 'private/plan.md', '# Plan\n\nsecret plan bytes', 'text/markdown');
    await page.goto(`${api.url}/${driveId}/private/plan.md`);
    await page.getByTestId('share-control').locator('summary').click();
    await page.getByLabel('Expires').selectOption({ label: '7 days' });
    await page.getByLabel('Password (optional)').fill('open sesame');
    await page.getByRole('button', { name: 'Create link' }).click();
    const link = (await page.getByTestId('new-share-link').textContent())!.trim();
    expect(link).toContain('/s/shk_');
    expect(await page.getByTestId('share-row').textContent()).toMatch(/password.*expires/s);
    await screenshot(page, SHOTS, 'share-dialog');

    const anon = await browser.newContext();
    const visitor = await anon.newPage();
    expect((await visitor.goto(link))!.status()).toBe(401);
    await visitor.getByLabel('Password').fill('open sesame');
    await visitor.getByRole('button', { name: 'Open' }).click();
    await visitor.waitForURL(link);
    expect(await visitor.getByRole('heading', { name: 'Plan', exact: true }).isVisible()).toBe(true);
    const raw = await visitor.request.get(`${link}?raw=1`);
    expect(raw.status()).toBe(200);
    expect(await raw.text()).toBe('# Plan\n\nsecret plan bytes');
    const download = await visitor.request.get(`${link}?download=1`);
    expect(download.headers()['content-disposition']).toMatch(/^attachment/);
    expect(await download.text()).toContain('secret plan bytes');
    // Without the unlock (another browser), the bytes still need the password.
    const stranger = await (await browser.newContext()).newPage();
    expect((await stranger.request.get(`${link}?raw=1`)).status()).toBe(401);
    await anon.close();
    await page.close();
  });

  it('a public file shows its current version only: ?v=1 is not served; marks show public and shared', async () => {
    const { page, driveId, key } = await owner();
    await put(api, key, 'pub/readme.md', '# Draft\n\nthe secret token 1234', 'text/markdown');
    await put(api, key, 'pub/readme.md', '# Final\n\nnothing secret', 'text/markdown');
    await page.goto(`${api.url}/${driveId}/pub/readme.md`);
    await page.getByTestId('share-control').locator('summary').click();
    await page.getByRole('button', { name: 'Make public' }).click();
    await page.waitForURL(`**/${driveId}/pub/readme.md`);
    expect(await page.getByTestId('public-state').textContent()).toMatch(/Anyone/);
    // People by email: listed in the Share control; the file is marked public, its sibling shared.
    await put(api, key, 'pub/notes.md', '# Notes', 'text/markdown');
    await page.goto(`${api.url}/${driveId}/pub/notes.md`);
    await page.getByTestId('share-control').locator('summary').click();
    await page.getByLabel('Email').fill('friend@example.test');
    await page.getByRole('button', { name: 'Share', exact: true }).click();
    await page.waitForURL(`**/${driveId}/pub/notes.md`);
    expect(await page.getByTestId('share-control').textContent()).toContain('friend@example.test');
    await page.goto(`${api.url}/${driveId}/pub/`);
    expect(await page.getByTestId('mark-public').count()).toBe(1);
    expect(await page.getByTestId('mark-shared').count()).toBe(1);

    const visitor = await (await browser.newContext()).newPage();
    const url = `${api.url}/${driveId}/pub/readme.md`;
    expect((await visitor.goto(url))!.status()).toBe(200);
    expect(await visitor.content()).toContain('Final');
    for (const q of ['?v=1', '?v=1&raw=1', '?v=1&download=1']) {
      const r = await visitor.request.get(`${url}${q}`);
      expect(r.status(), q).toBe(404);
      expect(await r.text()).not.toContain('1234');
    }
    expect(await visitor.content()).not.toContain('version-select');
    // The owner still reads every version.
    expect((await page.request.get(`${url}?v=1&raw=1`)).status()).toBe(200);
    await page.close();
  });
});
