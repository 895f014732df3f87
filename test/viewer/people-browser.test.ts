import { request } from 'node:http';
import type { Browser } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { TestApi } from '../helpers/api.js';
import { screenshot, seriousViolations, sidewaysScroll } from './browser.js';
import { claimedOwner, mintKey, OWNER_PASSWORD, put, useBrowserSuite } from './owner-helpers.js';

/**
 * Issue 27, pages for people: `/` and unknown paths are HTML, sign-out refuses the old cookie, a reload after minting a
 * key mints nothing, one origin, 0 serious/critical axe-core violations, no sideways scroll at 390 px; and the
 * screenshots of the closing note (test-results/web-screenshots/).
 */
let api: TestApi;
let browser: Browser;
useBrowserSuite((suite) => ({ api, browser } = suite));

const SHOTS = 'web-screenshots';
describe('pages for people', () => {
  it('/ is a landing page signed out and the dashboard signed in; unknown paths are HTML 404 with a way back', async () => {
    const anon = await browser.newPage();
    const landing = await anon.goto(`${api.url}/`);
    expect(landing!.status()).toBe(200);
    expect(landing!.headers()['content-type']).toMatch(/text\/html/);
    expect(await anon.getByRole('link', { name: 'Sign in' }).first().isVisible()).toBe(true);
    const missing = await anon.goto(`${api.url}/no/such/page`);
    expect(missing!.status()).toBe(404);
    expect(missing!.headers()['content-type']).toMatch(/text\/html/);
    expect(await anon.getByTestId('way-back').isVisible()).toBe(true);
    // API clients keep JSON.
    const json = await fetch(`${api.url}/no/such/page`);
    expect(json.headers.get('content-type')).toMatch(/json/);
    await anon.close();

    const page = await browser.newPage();
    await claimedOwner(api, page);
    await page.goto(`${api.url}/`);
    expect(await page.getByRole('heading', { name: 'Dashboard' }).isVisible()).toBe(true);
    // A refused form (no CSRF token) is a 403 page with a way back, too.
    const forged = await page.request.post(`${api.url}/files/new-folder`, { form: { name: 'x', csrf: 'forged' } });
    expect(forged.status()).toBe(403);
    expect(await forged.text()).toContain('data-testid="way-back"');
    await page.close();
  });

  it('a reload after minting a key on the dashboard mints nothing and shows nothing; sign-out refuses the old cookie', async () => {
    const page = await browser.newPage();
    const driveId = await claimedOwner(api, page);
    await page.goto(`${api.url}/dashboard`);
    await page.getByLabel('Label').fill('reload');
    await page.getByRole('button', { name: 'Mint API key' }).click();
    await page.waitForURL('**/dashboard#new-key');
    const key = (await page.getByTestId('new-api-key').textContent())!.trim();
    expect(key).toMatch(/^ad_live_/);
    await page.reload();
    await page.reload();
    expect(await page.content()).not.toContain(key);
    expect(await page.getByRole('navigation', { name: 'Main' }).isVisible()).toBe(true);
    const keys = await api.ctx.orm.em
      .fork()
      .execute<{ n: string }[]>(`select count(*) as n from api_keys where drive_id = ? and label = 'reload'`, [
        driveId,
      ]);
    expect(Number(keys[0].n)).toBe(1);

    const [old] = (await page.context().cookies(api.url)).filter((c) => c.name === 'ad_session');
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.waitForLoadState();
    const replay = await browser.newContext();
    await replay.addCookies([old]);
    const again = await replay.newPage();
    await again.goto(`${api.url}/dashboard`);
    expect(again.url()).toContain('/auth/login');
    expect(await again.content()).not.toContain(driveId);
    await replay.close();
    await page.close();
  });

  it('an expired session returns the person to where they were, for a page and for a form post', async () => {
    const page = await browser.newPage();
    const account: { email?: string } = {};
    const driveId = await claimedOwner(api, page, account);
    const key = await mintKey(api, page);
    await put(api, key, 'docs/deep/report.md', '# Report', 'text/markdown');
    const endSessions = () =>
      api.ctx.orm.em
        .fork()
        .execute(
          `update web_sessions set revoked_at = now()`.concat(
            ` where user_id = (select id from human_users where email = ?)`,
          ),
          [account.email],
        );
    const signIn = async () => {
      await page.getByLabel('Email').fill(account.email!);
      await page.getByLabel('Password').fill(OWNER_PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
    };

    // A page: sign in, then that page.
    await endSessions();
    expect((await page.goto(`${api.url}/${driveId}/docs/deep/`))!.status()).toBe(404);
    await page.getByTestId('sign-in-here').click();
    await signIn();
    await page.waitForURL(`**/${driveId}/docs/deep/`);

    // A form whose session ended meanwhile: sign in, then back on the page the form was on (nothing done).
    await page.getByText('New folder', { exact: true }).click();
    await page.getByLabel('Name', { exact: true }).fill('later');
    await endSessions();
    await page.getByRole('button', { name: 'Create' }).click();
    await page.waitForURL('**/auth/login**');
    expect(await page.content()).not.toContain('"error"');
    await signIn();
    await page.waitForURL(`**/${driveId}/docs/deep/`);
    expect(await page.getByTestId('folder-listing').textContent()).not.toMatch(/later/);
    await page.close();
  });

  it('the danger zone answers POST → 303 → GET: a reload repeats nothing', async () => {
    const page = await browser.newPage();
    const driveId = await claimedOwner(api, page);
    await page.goto(`${api.url}/settings/danger`);
    await page.getByLabel('Type the drive id').fill(driveId);
    await page.getByRole('button', { name: 'Delete the drive' }).click();
    await page.waitForURL('**/settings/danger');
    expect(await page.getByTestId('notice').textContent()).toMatch(/deleted/);
    await page.reload();
    expect(await page.getByTestId('notice').count()).toBe(0);
    await page.getByRole('button', { name: 'Restore the drive' }).click();
    await page.waitForURL('**/settings/danger');
    expect(await page.getByTestId('notice').textContent()).toMatch(/restored/);
    await page.close();
  });

  it('one origin: a page asked for by another host name is redirected to the configured web origin', async () => {
    const { port } = new URL(api.url);
    const ask = (accept: string) =>
      new Promise<{ status: number; location?: string }>((resolve, reject) => {
        const req = request(
          { host: '127.0.0.1', port, path: '/dashboard?x=1', headers: { host: `localhost:${port}`, accept } },
          (res) => {
            res.resume();
            resolve({ status: res.statusCode!, location: res.headers.location });
          },
        );
        req.on('error', reject);
        req.end();
      });
    expect(await ask('text/html,application/xhtml+xml')).toEqual({ status: 302, location: `${api.url}/dashboard?x=1` });
    expect((await ask('application/json')).status).not.toBe(302);
  });

  it('axe-core: 0 serious or critical on the dashboard, a folder and a file; no sideways scroll at 390 px', async () => {
    const page = await browser.newPage();
    const driveId = await claimedOwner(api, page);
    const key = await mintKey(api, page);
    await put(
      api,
      key,
      'reports/2026/q1-funnel.md',
      '# Q1 funnel\n\nVisitors turned into customers.\n\n| stage | count | share |\n|:--|--:|:-:|\n| visit | 12000 | 100% |\n' +
        '| signup | 900 | 7.5% |\n\n```ts\nconst rate = signups / visits;\nconsole.log(`rate ${rate}`);\n```\n\n![chart](chart.png)\n',
      'text/markdown',
    );
    const png = Buffer.from(
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
      'base64',
    );
    await put(api, key, 'reports/2026/chart.png', new Uint8Array(png), 'image/png');
    await put(api, key, 'reports/2026/data.csv', 'a,b\n1,2\n', 'text/csv', { 'x-drive-visibility': 'public' });
    await put(api, key, 'notes/todo.txt', 'ship it', 'text/plain');

    const pages = {
      dashboard: `${api.url}/dashboard`,
      folder: `${api.url}/${driveId}/reports/2026/`,
      'markdown-file': `${api.url}/${driveId}/reports/2026/q1-funnel.md`,
    };
    for (const [name, url] of Object.entries(pages)) {
      for (const width of [1280, 390]) {
        await page.setViewportSize({ width, height: 900 });
        await page.goto(url);
        expect(await sidewaysScroll(page), `${name} at ${width}px`).toBeLessThanOrEqual(0);
        expect(await seriousViolations(page), `${name} at ${width}px`).toEqual([]);
      }
      await page.setViewportSize({ width: 1280, height: 900 });
      await page.goto(url);
      await screenshot(page, SHOTS, name === 'folder' ? 'folder' : name);
    }
    // The markdown renders as GitHub does: highlighted code, aligned cells, the relative image from the drive.
    await page.goto(pages['markdown-file']);
    expect(await page.locator('.doc code.hljs .hljs-keyword').count()).toBeGreaterThan(0);
    expect(await page.locator('.doc td.al-right').count()).toBeGreaterThan(0);
    const img = page.locator('.doc img[alt=chart]');
    expect(await img.getAttribute('src')).toBe(`/${driveId}/reports/2026/chart.png?raw=1`);
    expect(await img.evaluate((el: HTMLImageElement) => el.naturalWidth)).toBe(1);
    await page.goto(`${api.url}/${driveId}/reports/2026/`);
    expect(await page.getByTestId('mark-public').count()).toBe(1);
    await page.setViewportSize({ width: 390, height: 900 });
    await screenshot(page, SHOTS, 'folder-390px');
    // A row's actions open over the list, not beside it: still no sideways scroll.
    await page.getByTestId('folder-listing').locator('details.actions summary').first().click();
    expect(await sidewaysScroll(page)).toBeLessThanOrEqual(0);
    await screenshot(page, SHOTS, 'folder-actions-390px');
    await page.close();
  });
});
