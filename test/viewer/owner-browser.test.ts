import type { Browser, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { TestApi } from '../helpers/api.js';
import { bearer } from '../identity/helpers.js';
import { screenshot } from './browser.js';
import { claimedOwner as ownerOf, mintKey as mintKeyOn, put as putOn, useBrowserSuite } from './owner-helpers.js';

/**
 * The human side end to end in headless Chromium: claim, mint and revoke an API key, view public
 * and private artifacts, redeem and rotate a share link, restore from the trash, turn wiki
 * indexing off, and the XSS attempts of uploaded HTML, SVG and markdown.
 */
let api: TestApi;
let browser: Browser;
useBrowserSuite((suite) => ({ api, browser } = suite));

const claimedOwner = (page: Page) => ownerOf(api, page);
const mintKey = (page: Page) => mintKeyOn(api, page);
const put = (key: string, path: string, body: string, type: string, extra: Record<string, string> = {}) =>
  putOn(api, key, path, body, type, extra);

describe('owner pages and viewer in a real browser', () => {
  it('mints an API key (shown once, reload mints nothing), uses it on /v0, revokes it; dashboard shows usage and activity', async () => {
    const page = await browser.newPage();
    const driveId = await claimedOwner(page);
    const key = await mintKey(page);
    expect(key).toMatch(/^ad_live_/);
    expect((await fetch(`${api.url}/v0/drives/me`, { headers: bearer(key) })).status).toBe(200);
    await page.reload();
    expect(await page.content()).not.toContain(key);
    const keys = await api.ctx.orm.em
      .fork()
      .execute<{ n: string }[]>(`select count(*) as n from api_keys where drive_id = ? and label = 'browser'`, [
        driveId,
      ]);
    expect(Number(keys[0].n)).toBe(1);

    await put(key, 'notes/hello.md', '# Hello\n\nSome **notes**.', 'text/markdown');
    await page.goto(`${api.url}/dashboard`);
    expect(await page.getByTestId('usage').textContent()).toMatch(/Storage/);
    expect(await page.getByTestId('activity').textContent()).toMatch(/Created notes\/hello\.md/);
    await screenshot(page, 'viewer', 'dashboard');

    await page.goto(`${api.url}/settings/api-keys`);
    // Revoking asks first: the row's Revoke opens the question, its button revokes.
    const row = page.getByRole('row', { name: key.slice(0, 14) });
    await row.locator('summary', { hasText: 'Revoke' }).click();
    await row.getByRole('button', { name: 'Yes, revoke' }).click();
    await page.waitForURL('**/settings/api-keys');
    expect((await fetch(`${api.url}/v0/drives/me`, { headers: bearer(key) })).status).toBe(401);
    await page.close();
  });

  it('public artifact with no credentials; private is 404; share link redeemed, rotated, old link dead; trash restore; wiki off', async () => {
    const page = await browser.newPage();
    const driveId = await claimedOwner(page);
    const key = await mintKey(page);
    const pub = await put(
      key,
      'docs/public.md',
      '# Public report\n\n| q | revenue |\n|---|---|\n| Q1 | 10 |\n\n```ts\nconst x = 1;\n```\n',
      'text/markdown',
      { 'x-drive-visibility': 'public' },
    );
    const priv = await put(key, 'docs/private.md', '# Private plan', 'text/markdown');

    const anon = await browser.newContext();
    const visitor = await anon.newPage();
    const ok = await visitor.goto(pub.url);
    expect(ok!.status()).toBe(200);
    expect(await visitor.getByRole('heading', { name: 'Public report' }).isVisible()).toBe(true);
    await screenshot(visitor, 'viewer', 'markdown');
    const refused = await visitor.goto(priv.url);
    expect(refused!.status()).toBe(404);
    expect(await visitor.content()).not.toContain('Private plan');
    expect((await visitor.goto(`${api.url}/a/${priv.art_id}/head`))!.status()).toBe(404);

    // The owner sees the private one with the session alone.
    expect((await page.goto(priv.url))!.status()).toBe(200);
    expect(await page.getByRole('heading', { name: 'Private plan' }).isVisible()).toBe(true);

    // Share link: create, redeem anonymously, rotate, the old link dies.
    await page.goto(`${api.url}/settings/sharing?resource=${priv.art_id}`);
    await page.getByRole('button', { name: 'Create link' }).click();
    const link1 = (await page.getByTestId('new-share-link').textContent())!.trim();
    expect((await visitor.goto(link1))!.status()).toBe(200);
    expect(await visitor.getByRole('heading', { name: 'Private plan' }).isVisible()).toBe(true);
    await page.getByTestId('share-row').getByRole('button', { name: 'Rotate' }).click();
    const link2 = (await page.getByTestId('new-share-link').textContent())!.trim();
    expect(link2).not.toBe(link1);
    expect((await visitor.goto(link1))!.status()).toBe(404);
    expect((await visitor.goto(link2))!.status()).toBe(200);
    await page.reload();
    expect(await page.getByTestId('new-share-link').count()).toBe(0);

    // Trash: delete over the API, restore on the trash page.
    expect(
      (await fetch(`${api.url}/v0/artifacts/${priv.art_id}`, { method: 'DELETE', headers: bearer(key) })).status,
    ).toBe(200);
    expect((await fetch(`${api.url}/v0/artifacts/${priv.art_id}`, { headers: bearer(key) })).status).toBe(404);
    await page.goto(`${api.url}/trash`);
    await page.getByRole('row', { name: 'docs/private.md' }).getByRole('button', { name: 'Restore' }).click();
    await page.waitForURL(`**/${driveId}/docs/private.md`);
    expect((await fetch(`${api.url}/v0/artifacts/${priv.art_id}`, { headers: bearer(key) })).status).toBe(200);

    // Settings: wiki indexing off.
    await page.goto(`${api.url}/settings`);
    expect(await page.getByTestId('wiki-state').textContent()).toMatch(/on/);
    await page.getByRole('button', { name: 'Turn wiki indexing off' }).click();
    await page.waitForURL('**/settings?drive=*');
    expect(await page.getByTestId('wiki-state').textContent()).toMatch(/off/);
    const me = await (await fetch(`${api.url}/v0/drives/me`, { headers: bearer(key) })).json();
    expect(me.settings.wiki_indexing).toBe(false);

    // A form post without the session's CSRF token is refused.
    const forged = await page.request.post(`${api.url}/settings/wiki`, {
      form: { wiki_indexing: 'on', csrf: 'forged' },
    });
    expect(forged.status()).toBe(403);
    await anon.close();
    await page.close();
  });

  it('uploaded HTML, SVG with script and markdown with raw HTML cannot touch the app origin', async () => {
    const page = await browser.newPage();
    const driveId = await claimedOwner(page);
    const key = await mintKey(page);
    const attack = (tag: string) => `
      try { document.cookie = 'xss_${tag}=1; path=/'; } catch (e) {}
      try { localStorage.setItem('xss_${tag}', '1'); } catch (e) {}
      try { parent.document.cookie = 'xss_parent_${tag}=1; path=/'; } catch (e) {}
      try { top.localStorage.setItem('xss_top_${tag}', '1'); } catch (e) {}
      try { fetch('${api.url}/settings/api-keys', { method: 'POST', credentials: 'include', mode: 'no-cors',
        headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'label=xss_${tag}' }).catch(() => {}); } catch (e) {}
      try { new Image().src = '${api.url}/xss-probe?tag=${tag}'; } catch (e) {}
      document.documentElement.setAttribute('data-ran', '1');`;
    await put(
      key,
      'x/page.html',
      `<!doctype html><html><body><p>html</p><script>${attack('html')}</script></body></html>`,
      'text/html',
    );
    await put(
      key,
      'x/pic.svg',
      `<svg xmlns="http://www.w3.org/2000/svg" width="20" height="20"><rect width="20" height="20"/><script>${attack('svg')}</script></svg>`,
      'image/svg+xml',
    );
    await put(
      key,
      'x/notes.md',
      `# Notes\n\n<script>${attack('md')}</script>\n\n<img src="x" onerror="document.cookie='xss_md_img=1'">\n\n<a href="javascript:document.cookie='xss_md_a=1'">click</a>\n`,
      'text/markdown',
    );

    const appRequestsWithSession: string[] = [];
    page.on('request', async (r) => {
      if (
        r.frame() !== page.mainFrame() &&
        r.url().startsWith(api.url) &&
        /ad_session/.test((await r.allHeaders()).cookie ?? '')
      )
        appRequestsWithSession.push(r.url());
    });
    for (const path of ['x/page.html', 'x/pic.svg']) {
      await page.goto(`${api.url}/${driveId}/${path}`);
      const frame = page.frames().find((f) => f.url().startsWith(`${api.contentUrl}/c/`))!;
      expect(frame, `content frame for ${path}`).toBeTruthy();
      await expect.poll(() => frame.evaluate(() => document.documentElement.getAttribute('data-ran'))).toBe('1'); // the script did run, sandboxed
      await page.waitForTimeout(300);
    }
    await page.goto(`${api.url}/${driveId}/x/notes.md`);
    await page
      .getByText('click')
      .click()
      .catch(() => {});
    await page.waitForTimeout(300);
    await screenshot(page, 'viewer', 'xss-markdown');

    const cookies = await page.context().cookies([api.url, api.contentUrl]);
    expect(cookies.map((c) => c.name).filter((n) => n.startsWith('xss'))).toEqual([]);
    await page.goto(`${api.url}/dashboard`);
    const storage = await page.evaluate(() => Object.keys(localStorage));
    expect(storage.filter((k) => k.startsWith('xss'))).toEqual([]);
    expect(appRequestsWithSession).toEqual([]);
    const keys = await api.ctx.orm.em
      .fork()
      .execute<{ label: string }[]>(`select label from api_keys where drive_id = ?`, [driveId]);
    expect(keys.map((k) => k.label).filter((l) => l?.startsWith('xss'))).toEqual([]);
    await page.close();
  });
});
