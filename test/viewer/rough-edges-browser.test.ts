import type { Browser, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { TestApi } from '../helpers/api.js';
import { accessTokenFor, bearer, registerAnonymous, startClaim, uniqueEmail } from '../identity/helpers.js';
import { checkedAtBothWidths, screenshot, sidewaysScroll } from './browser.js';
import { confirmSignUpInBrowser } from '../helpers/browser.js';
import { claimedOwner, mintKey, untilIndexed, OWNER_PASSWORD, put, useBrowserSuite } from './owner-helpers.js';

/**
 * Issue 41, item 3: the people's pages as someone used to Google Drive or GitHub expects them, one test per point,
 * clicked through in Chromium, each state shot under test-results/web-screenshots/ and held to axe-core (0 serious or
 * critical) at 1280 and 390 px with no sideways scroll.
 */
let api: TestApi;
let browser: Browser;
useBrowserSuite((suite) => ({ api, browser } = suite));

const SHOTS = 'web-screenshots';

async function owner() {
  const context = await browser.newContext();
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: api.url });
  const page = await context.newPage();
  const driveId = await claimedOwner(api, page);
  return { page, driveId, key: await mintKey(api, page) };
}

/** Whether an element is inside the viewport as it stands (the person sees it without scrolling). */
const inView = (page: Page, testId: string) =>
  page.getByTestId(testId).evaluate((el) => {
    const r = el.getBoundingClientRect();
    return r.top >= 0 && r.bottom <= window.innerHeight;
  });

describe("the people's pages without their rough edges", () => {
  it("a file's page has Rename/Move and Delete (with undo) of its own", async () => {
    const { page, driveId, key } = await owner();
    await put(api, key, 'notes/draft.md', '# Draft\n\nfirst words', 'text/markdown');
    await page.goto(`${api.url}/${driveId}/notes/draft.md`);
    await page.getByTestId('rename-move').locator('summary').click();
    await checkedAtBothWidths(page, 'file-rename-open');
    await page.getByTestId('rename-move').getByLabel('Name').fill('final.md');
    await page.getByTestId('rename-move').getByLabel('Folder').fill('done');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(`**/${driveId}/done/final.md`);
    expect(await page.getByTestId('notice').textContent()).toMatch(/Moved to done\/final\.md/);

    await page.getByTestId('file-delete').click();
    await page.waitForURL(`**/${driveId}/done/`);
    expect(await page.getByTestId('notice').textContent()).toMatch(/Moved done\/final\.md to the trash/);
    await screenshot(page, SHOTS, 'file-deleted-undo');
    await page.getByRole('button', { name: 'Undo' }).click();
    await page.waitForURL(`**/${driveId}/done/`);
    expect(await page.getByTestId('folder-listing').textContent()).toMatch(/final\.md/);
    await page.close();
  });

  it('panels open over the page and do not push the toolbar sideways', async () => {
    const { page, driveId, key } = await owner();
    await put(api, key, 'plans/q3.md', `# Q3\n\n${'plan '.repeat(200)}`, 'text/markdown');
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      await page.goto(`${api.url}/${driveId}/plans/q3.md`);
      const history = page.getByRole('link', { name: 'History' });
      const before = await history.boundingBox();
      const heading = await page.getByRole('heading', { name: 'Q3', exact: true }).boundingBox();
      for (const panel of ['Share', 'New version', 'Rename or move']) {
        const summary = page.locator('.toolbar > details > summary', { hasText: panel });
        await summary.click();
        // The toolbar stays where it was, and so does the document below it: the panel lies over the page.
        expect(await history.boundingBox(), `${panel} at ${width}px`).toEqual(before);
        expect(await page.getByRole('heading', { name: 'Q3', exact: true }).boundingBox()).toEqual(heading);
        expect(await sidewaysScroll(page), `${panel} at ${width}px`).toBeLessThanOrEqual(0);
        await screenshot(page, SHOTS, `panel-${panel.replace(/ /g, '-').toLowerCase()}-${width}`);
        await summary.click();
      }
    }
    await page.goto(`${api.url}/${driveId}/plans/`);
    await page.locator('.toolbar > details > summary', { hasText: 'Upload' }).click();
    await checkedAtBothWidths(page, 'folder-upload-open');
    await page.close();
  });

  it('a new share link and a new API key appear where the person is, with Copy; a key has ready lines; revoking asks', async () => {
    const { page, driveId, key } = await owner();
    await put(api, key, 'shared/report.md', `# Report\n\n${'line\n\n'.repeat(120)}`, 'text/markdown');
    await page.goto(`${api.url}/${driveId}/shared/report.md`);
    await page.getByTestId('share-control').locator('summary').click();
    await page.getByRole('button', { name: 'Create link' }).click();
    await page.waitForURL(`**/${driveId}/shared/report.md`);
    const link = (await page.getByTestId('new-share-link').textContent())!.trim();
    expect(link).toContain('/s/shk_');
    expect(await inView(page, 'new-share-link')).toBe(true);
    const copy = page.getByTestId('copy-new-share-link');
    await copy.click();
    // The page script wrote the link to the clipboard (its promise resolved): the button says so.
    await expect.poll(() => copy.textContent()).toBe('Copied');
    await checkedAtBothWidths(page, 'share-link-new');

    await page.goto(`${api.url}/settings/api-keys`);
    await page.getByLabel('Label').fill('laptop');
    await page.getByRole('button', { name: 'Mint API key' }).click();
    await page.waitForURL('**/settings/api-keys#new-key');
    const newKey = (await page.getByTestId('new-api-key').textContent())!.trim();
    expect(newKey).toMatch(/^ad_live_/);
    expect(await inView(page, 'new-api-key')).toBe(true);
    expect(await page.getByTestId('snippet-mcp').textContent()).toContain(`${api.url}/mcp`);
    expect(await page.getByTestId('snippet-mcp').textContent()).toContain(`Bearer ${newKey}`);
    expect(await page.getByTestId('snippet-cli').textContent()).toContain(`AGENT_DRIVE_API_KEY=${newKey}`);
    const copyKey = page.getByTestId('copy-new-api-key');
    await copyKey.click();
    await expect.poll(() => copyKey.textContent()).toBe('Copied');
    await checkedAtBothWidths(page, 'api-key-new');

    // Revoking asks first; only the answer revokes.
    const row = page.getByRole('row', { name: newKey.slice(0, 14) });
    await row.locator('summary', { hasText: 'Revoke' }).click();
    expect(await row.getByText('Agents using it lose access at once').isVisible()).toBe(true);
    expect((await fetch(`${api.url}/v0/drives/me`, { headers: bearer(newKey) })).status).toBe(200);
    await screenshot(page, SHOTS, 'api-key-revoke-asks');
    await row.getByRole('button', { name: 'Yes, revoke' }).click();
    await page.waitForURL('**/settings/api-keys');
    expect((await fetch(`${api.url}/v0/drives/me`, { headers: bearer(newKey) })).status).toBe(401);
    await page.close();
  });

  it("the claim link's page says why, through sign-up; the drive by its contents; Approve and Decline differ", async () => {
    const reg = await registerAnonymous(api);
    await put(
      api,
      await accessTokenFor(api, reg.identity_assertion),
      'findings/summary.md',
      '# Summary\n\nWhat the agent found.',
      'text/markdown',
    );
    const claim = await startClaim(api, reg.claim_token);
    const page = await (await browser.newContext()).newPage();
    await page.goto(claim.verification_uri_complete);
    expect(await page.getByTestId('claim-context').textContent()).toMatch(/An AI agent asked you to claim its drive/);
    await checkedAtBothWidths(page, 'claim-sign-in');
    await page.getByRole('link', { name: 'Create one' }).click();
    expect(await page.getByTestId('claim-context').textContent()).toContain(claim.user_code);
    const email = uniqueEmail('claim');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(OWNER_PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await confirmSignUpInBrowser(page, api.url, email, OWNER_PASSWORD);
    await page.waitForURL(`**/claim?code=${claim.user_code}`);
    expect(await page.getByTestId('claim-why').textContent()).toMatch(/asked you to claim it/);
    expect(await page.getByTestId('claim-time-left').textContent()).toMatch(/^in (about a minute|\d+ minutes)$/);
    const drive = await page.getByTestId('claim-drive').textContent();
    expect(drive).toMatch(/1 file/);
    expect(drive).toContain('findings/summary.md');
    expect(drive).not.toContain(reg.drive_id);
    const look = (name: string) =>
      page.getByRole('button', { name }).evaluate((b) => {
        const s = getComputedStyle(b);
        return `${s.backgroundColor} ${s.color} ${s.borderColor}`;
      });
    expect(await look('Approve')).not.toBe(await look('Decline'));
    await checkedAtBothWidths(page, 'claim-page');
    await page.getByRole('button', { name: 'Approve' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toMatch(/Approved/);
    await page.close();
  });

  it('folder rows: counts and sizes in their columns, stable widths, kinds not MIME types, Download with the actions', async () => {
    const { page, driveId, key } = await owner();
    await put(api, key, 'lab/readme.md', '# Lab\n\nnotes', 'text/markdown');
    await put(api, key, 'lab/runs/a.csv', 'x,y\n1,2\n', 'text/csv');
    await put(api, key, 'lab/runs/b.csv', 'x,y\n3,4\n', 'text/csv');
    await put(api, key, 'lab/a-much-longer-file-name-that-wraps-in-the-name-column.txt', 'hello', 'text/plain');
    await page.goto(`${api.url}/${driveId}/lab/`);
    const listing = page.getByTestId('folder-listing');
    const headers = await listing.locator('thead th').allTextContents();
    expect(headers.slice(0, 4)).toEqual(['Name', 'Kind', 'Size', 'Updated']);
    const cells = async (name: RegExp) => listing.getByRole('row', { name }).locator('td').allTextContents();
    const folderRow = (await cells(/runs/)).map((t) => t.trim());
    expect(folderRow[1]).toBe('Folder · 2 files');
    expect(folderRow[2]).toMatch(/^\d+ B$/);
    const fileRow = (await cells(/readme\.md/)).map((t) => t.trim());
    expect(fileRow[1]).toBe('Markdown');
    expect(fileRow[2]).toMatch(/^\d+ B$/);
    expect(await listing.textContent()).not.toContain('text/markdown');
    // The same columns, at the same places, in another folder with other names.
    const columnsAt = () =>
      listing.locator('thead th').evaluateAll((ths) => ths.map((t) => t.getBoundingClientRect().x));
    const here = await columnsAt();
    await page.goto(`${api.url}/${driveId}/lab/runs/`);
    expect(await columnsAt()).toEqual(here);
    await page.goto(`${api.url}/${driveId}/lab/`);
    await listing
      .getByRole('row', { name: /readme\.md/ })
      .locator('summary')
      .click();
    const download = listing.getByRole('row', { name: /readme\.md/ }).getByRole('link', { name: 'Download' });
    expect(await download.getAttribute('href')).toMatch(/readme\.md\?download=1$/);
    await checkedAtBothWidths(page, 'folder-rows');
    // On the file page, Download sits in the toolbar with the other actions.
    await page.goto(`${api.url}/${driveId}/lab/readme.md`);
    expect(await page.locator('.toolbar').getByTestId('download').isVisible()).toBe(true);
    expect(await page.getByTestId('kind').textContent()).toBe('Markdown');
    await checkedAtBothWidths(page, 'file-toolbar');
    await page.close();
  });

  it('recent activity reads as sentences', async () => {
    const { page, driveId, key } = await owner();
    await put(api, key, 'docs/a.md', '# A', 'text/markdown');
    await put(api, key, 'docs/a.md', '# A, again', 'text/markdown');
    const moved = await fetch(`${api.url}/v0/artifacts/docs/a.md/meta`, { headers: bearer(key) });
    const { art_id } = (await moved.json()) as { art_id: string };
    const patch = await fetch(`${api.url}/v0/artifacts/${art_id}`, {
      method: 'PATCH',
      headers: { ...bearer(key), 'content-type': 'application/json' },
      body: JSON.stringify({ path: 'docs/b.md' }),
    });
    expect(patch.status).toBe(200);
    await page.goto(`${api.url}/dashboard`);
    const activity = await page.getByTestId('activity').textContent();
    expect(activity).toMatch(/Created docs\/a\.md/);
    expect(activity).toMatch(/Updated docs\/a\.md \(v2\)/);
    expect(activity).toMatch(/Renamed docs\/a\.md → docs\/b\.md/);
    expect(activity).not.toMatch(/artifact\./);
    await page.getByTestId('activity').getByRole('link', { name: 'docs/b.md' }).click();
    await page.waitForURL(`**/${driveId}/docs/b.md`);
    await page.goto(`${api.url}/dashboard`);
    await checkedAtBothWidths(page, 'dashboard-activity');
    await page.close();
  });

  it('the trash says when each file goes, has headers for every column, Delete forever and Empty trash (asked)', async () => {
    const { page, driveId, key } = await owner();
    for (const name of ['old.md', 'older.md', 'oldest.md']) {
      await put(api, key, `tmp/${name}`, `# ${name}`, 'text/markdown');
      await fetch(`${api.url}/v0/artifacts/tmp/${name}`, { method: 'DELETE', headers: bearer(key) });
    }
    await page.goto(`${api.url}/trash`);
    const trash = page.getByTestId('trash');
    expect((await trash.locator('thead th').allTextContents()).map((t) => t.trim())).toEqual([
      'Name',
      'Deleted',
      'Deleted for good',
      'Actions',
    ]);
    expect(await trash.textContent()).toMatch(/will be deleted on \d{1,2} [A-Z][a-z]{2}/);
    await checkedAtBothWidths(page, 'trash');

    const row = trash.getByRole('row', { name: /tmp\/old\.md/ });
    await row.locator('summary', { hasText: 'Delete forever' }).click();
    expect(await row.getByText('This cannot be undone').isVisible()).toBe(true);
    await screenshot(page, SHOTS, 'trash-delete-forever-asks');
    await row.getByRole('button', { name: 'Yes, delete forever' }).click();
    await page.waitForURL('**/trash');
    expect(await page.getByTestId('notice').textContent()).toMatch(/Deleted forever/);
    expect(await trash.textContent()).not.toMatch(/tmp\/old\.md/);
    expect(await trash.textContent()).toMatch(/tmp\/older\.md/);

    await page.getByTestId('empty-trash').locator('summary').click();
    expect(await page.getByTestId('empty-trash').textContent()).toMatch(/Delete all 2 files/);
    await page.getByRole('button', { name: 'Yes, empty the trash' }).click();
    await page.waitForURL('**/trash');
    expect(await trash.textContent()).toMatch(/The trash is empty/);
    // Gone for good: nothing to restore over the API either.
    const left = await fetch(`${api.url}/v0/drives/${driveId}/trash`, { headers: bearer(key) });
    expect(((await left.json()) as { items: unknown[] }).items).toEqual([]);
    await page.close();
  });

  it('search lists a file once with its passages; the share heading follows visibility; links told apart', async () => {
    const { page, driveId, key } = await owner();
    const para = (n: number) =>
      `Section ${n}. The heliotrope pigment faded in sample ${n}. ${'filler words '.repeat(60)}`;
    await put(api, key, 'lab/heliotrope.md', `# Pigments\n\n${[1, 2, 3].map(para).join('\n\n')}`, 'text/markdown');
    await untilIndexed(api, key, 'find', 'heliotrope');
    await page.goto(`${api.url}/search?q=heliotrope`);
    const hits = page.getByTestId('search-hit');
    expect(await hits.count()).toBe(1);
    expect(await hits.first().locator('ul.passages li').count()).toBeGreaterThan(0);
    await checkedAtBothWidths(page, 'search-grouped');

    await page.goto(`${api.url}/${driveId}/lab/heliotrope.md`);
    expect(await page.getByTestId('share-visibility').textContent()).toMatch(/Private/);
    await page.getByTestId('share-control').locator('summary').click();
    expect(await page.getByTestId('visibility-heading').textContent()).toMatch(/Private/);
    await page.getByRole('button', { name: 'Make public' }).click();
    await page.waitForURL(`**/${driveId}/lab/heliotrope.md`);
    expect(await page.getByTestId('visibility-heading').textContent()).toMatch(/Public/);
    expect(await page.getByTestId('share-visibility').textContent()).toMatch(/Public/);
    await page.getByLabel('Expires').selectOption({ label: '7 days' });
    await page.getByRole('button', { name: 'Create link' }).click();
    await page.waitForURL(`**/${driveId}/lab/heliotrope.md`);
    await page.getByLabel('Access').selectOption('commenter');
    await page.getByLabel('Label (optional)').fill('for the reviewers');
    await page.getByRole('button', { name: 'Create link' }).click();
    await page.waitForURL(`**/${driveId}/lab/heliotrope.md`);
    const rows = await page.getByTestId('share-row').allTextContents();
    expect(rows).toHaveLength(2);
    expect(rows[0]).not.toBe(rows[1]);
    for (const r of rows) expect(r).toMatch(/made (just now|\d+ min ago) by you, here/);
    expect(rows.join(' ')).toMatch(/View link.*expires/s);
    expect(await page.getByTestId('share-label').allTextContents()).toEqual(['View link', 'for the reviewers']);
    expect(rows[1]).toMatch(/Comment.*never expires/s);
    // The label is the link's own, over the API too.
    const listed = await fetch(`${api.url}/v0/shares?resource=lab/heliotrope.md`, { headers: bearer(key) });
    const items = ((await listed.json()) as { items: { label: string | null; created_by_type: string }[] }).items;
    expect(items.map((i) => i.label)).toEqual([null, 'for the reviewers']);
    await checkedAtBothWidths(page, 'share-panel-links');
    await page.close();
  });
});
