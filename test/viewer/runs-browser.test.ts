import type { Browser } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { TestApi } from '../helpers/api.js';
import { bearer } from '../identity/helpers.js';
import { claimedOwner, mintKey, put, useBrowserSuite } from './owner-helpers.js';

/** Activity by run, "Undo this run" after its preview, and Snapshots with a rewind, clicked through in Chromium. */
let api: TestApi;
let browser: Browser;
useBrowserSuite((suite) => ({ api, browser } = suite));

const read = async (key: string, path: string) =>
  (await fetch(`${api.url}/v0/artifacts/${path}/meta`, { headers: bearer(key) })).json() as Promise<{
    hash?: string;
    version_number?: number;
  }>;

describe('runs and snapshots in a real browser', () => {
  it('groups an agent run on the activity page, previews its undo, then undoes it', async () => {
    const page = await browser.newPage();
    const driveId = await claimedOwner(api, page);
    const key = await mintKey(api, page);
    await put(api, key, 'plan.md', '# Plan v1', 'text/markdown');
    const before = await read(key, 'plan.md');
    const agent = { 'x-drive-run-id': 'agent-task-7', 'x-drive-actor': 'coder-bot' };
    await put(api, key, 'plan.md', '# Plan rewritten by the agent', 'text/markdown', agent);
    await put(api, key, 'junk.md', '# junk', 'text/markdown', agent);

    await page.goto(`${api.url}/dashboard`);
    await page.getByRole('link', { name: 'Runs' }).click();
    const run = page.locator('[data-run-id="agent-task-7"]');
    expect(await run.textContent()).toMatch(/coder-bot\s+changed 2 files/);
    await run.getByRole('link', { name: 'Undo this run…' }).click();
    await page.waitForURL('**/activity/agent-task-7/undo');
    // The GET page computes nothing: the preview is a form post, charged like a write.
    expect(await page.getByTestId('preview').count()).toBe(0);
    await page.getByRole('button', { name: 'Preview' }).click();
    await page.waitForURL('**/activity/agent-task-7/undo/preview');
    const preview = await page.getByTestId('preview').textContent();
    expect(preview).toContain('plan.md');
    expect(preview).toContain('junk.md');
    // The preview changed nothing.
    expect((await read(key, 'junk.md')).hash).toBeTruthy();

    await page.getByRole('button', { name: 'Undo this run' }).click();
    await page.waitForURL('**/activity');
    expect(await page.getByTestId('notice').textContent()).toMatch(/2 change\(s\) undone/);
    expect((await read(key, 'plan.md')).hash).toBe(before.hash);
    expect((await fetch(`${api.url}/v0/artifacts/junk.md/meta`, { headers: bearer(key) })).status).toBe(404);

    // The file's history names the run behind each version: the revert, the agent's, the first write's.
    await page.goto(`${api.url}/${driveId}/plan.md?history=1`);
    const runs = await page.getByTestId('version-run').allTextContents();
    expect(runs).toHaveLength(3);
    expect(runs[0]).toMatch(/^run revert_/);
    expect(runs[1]).toBe('run agent-task-7');
    expect(runs[2]).toMatch(/^run run_/);
    await page.close();
  });

  it('makes a snapshot, then rewinds to it after the preview', async () => {
    const page = await browser.newPage();
    await claimedOwner(api, page);
    const key = await mintKey(api, page);
    await put(api, key, 'notes.md', '# Notes v1', 'text/markdown');
    const good = await read(key, 'notes.md');

    await page.goto(`${api.url}/dashboard`);
    await page.getByRole('link', { name: 'Snapshots' }).click();
    await page.getByLabel('Name the drive as it is now').fill('before the experiment');
    await page.getByRole('button', { name: 'Make a snapshot' }).click();
    await page.waitForURL('**/snapshots');
    expect(await page.getByTestId('snapshots').textContent()).toContain('before the experiment');

    await put(api, key, 'notes.md', '# Notes broken', 'text/markdown');
    await put(api, key, 'extra.md', '# extra', 'text/markdown');
    await page.reload();
    await page.getByRole('link', { name: 'Rewind to this…' }).click();
    await page.getByRole('button', { name: 'Preview' }).click();
    await page.waitForURL('**/rewind/preview');
    expect(await page.getByTestId('preview').textContent()).toContain('extra.md');
    expect((await read(key, 'extra.md')).hash).toBeTruthy();
    await page.getByRole('button', { name: 'Rewind the drive' }).click();
    await page.waitForURL('**/snapshots');
    expect(await page.getByTestId('notice').textContent()).toMatch(/undone/);
    expect((await read(key, 'notes.md')).hash).toBe(good.hash);
    expect((await fetch(`${api.url}/v0/artifacts/extra.md/meta`, { headers: bearer(key) })).status).toBe(404);
    await page.close();
  });

  it('keeps a trashed file a snapshot needs out of "Delete forever" and "Empty trash" until the snapshot goes', async () => {
    const page = await browser.newPage();
    await claimedOwner(api, page);
    const key = await mintKey(api, page);
    await put(api, key, 'kept.md', '# in the snapshot', 'text/markdown');
    await page.goto(`${api.url}/snapshots`);
    await page.getByLabel('Name the drive as it is now').fill('audit point');
    await page.getByRole('button', { name: 'Make a snapshot' }).click();
    await page.waitForURL('**/snapshots');
    await put(api, key, 'scratch.md', '# made after it', 'text/markdown');
    for (const path of ['kept.md', 'scratch.md'])
      await fetch(`${api.url}/v0/artifacts/${path}`, { method: 'DELETE', headers: bearer(key) });

    await page.goto(`${api.url}/trash`);
    const kept = page.getByTestId('trash').getByRole('row', { name: /kept\.md/ });
    expect(await kept.textContent()).toMatch(/kept while a snapshot needs it/);
    expect(await kept.locator('summary', { hasText: 'Delete forever' }).count()).toBe(0);
    await page.getByTestId('empty-trash').locator('summary').click();
    expect(await page.getByTestId('empty-trash').textContent()).toMatch(/Delete the file in the trash/);
    await page.getByRole('button', { name: 'Yes, empty the trash' }).click();
    await page.waitForURL('**/trash');
    expect(await page.getByTestId('notice').textContent()).toMatch(
      /1 file deleted forever; 1 file kept while a snapshot/,
    );
    const trash = page.getByTestId('trash');
    expect(await trash.textContent()).toContain('kept.md');
    expect(await trash.textContent()).not.toContain('scratch.md');

    // Deleting the snapshot (asked first) frees the file for "Delete forever".
    await page.goto(`${api.url}/snapshots`);
    const row = page.getByTestId('snapshot').filter({ hasText: 'audit point' });
    await row.locator('summary', { hasText: 'Delete' }).click();
    await row.getByRole('button', { name: 'Yes, delete the snapshot' }).click();
    await page.waitForURL('**/snapshots');
    expect(await page.getByTestId('notice').textContent()).toMatch(/Snapshot “audit point” deleted/);
    await page.goto(`${api.url}/trash`);
    const freed = page.getByTestId('trash').getByRole('row', { name: /kept\.md/ });
    await freed.locator('summary', { hasText: 'Delete forever' }).click();
    await freed.getByRole('button', { name: 'Yes, delete forever' }).click();
    await page.waitForURL('**/trash');
    expect(await page.getByTestId('trash').textContent()).toMatch(/The trash is empty/);
    await page.close();
  });
});
