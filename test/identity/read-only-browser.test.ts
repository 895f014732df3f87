import type { Browser } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { TestApi } from '../helpers/api.js';
import { mcpClient } from '../mcp/helpers.js';
import { authorizeQuery, exchangeCode, pkce, REDIRECT, registerClient } from '../mcp/oauth-helpers.js';
import { screenshot } from '../viewer/browser.js';
import { claimedOwner, useBrowserSuite } from '../viewer/owner-helpers.js';
import { bearer } from './helpers.js';

/**
 * Read-only connections as the owner meets them in Chromium (issue 36, point 5): "Read only" picked on the MCP consent
 * page yields a token whose writes are refused, and a read-only API key minted on the dashboard.
 */
let api: TestApi;
let browser: Browser;
useBrowserSuite((suite) => ({ api, browser } = suite));

describe('read-only connections in a real browser', () => {
  it('the owner picks "Read only" on the consent page; the token reads and every write is refused', async () => {
    const page = await browser.newPage();
    await claimedOwner(api, page);
    const client = await registerClient(api);
    const { verifier, challenge } = pkce();
    // The code reaches the client's loopback callback. Where the page's CSP (form-action 'self') stops Chromium from
    // following the consent's 303 to another origin, the code is read from that 303's Location instead.
    let callback: string | undefined;
    await page.route(`${REDIRECT}**`, (route) => {
      callback = route.request().url();
      return route.fulfill({ status: 200, contentType: 'text/plain', body: 'signed in; you may close this tab' });
    });
    let redirected: string | undefined;
    await page.route(`${api.url}/oauth2/authorize`, async (route) => {
      if (route.request().method() !== 'POST') return route.continue();
      const answer = await route.fetch({ maxRedirects: 0 });
      const location = answer.headers().location;
      if (location?.startsWith(REDIRECT)) redirected = location;
      return route.fulfill({ response: answer });
    });

    await page.goto(`${api.url}/oauth2/authorize?${authorizeQuery(client.client_id, challenge, { state: 'ro-b' })}`);
    expect(await page.getByRole('radio', { name: /^Read and write/ }).isChecked()).toBe(true);
    await page.getByRole('radio', { name: /^Read only/ }).check();
    await screenshot(page, 'read-only', 'consent');
    await page.getByRole('button', { name: 'Allow' }).click();
    await expect.poll(() => callback ?? redirected).toBeTruthy();
    console.log(`consent code reached the callback: ${callback ? 'yes' : 'no (read from the 303 Location)'}`);
    const back = new URL((callback ?? redirected)!);
    expect(back.searchParams.get('state')).toBe('ro-b');

    const t = await exchangeCode(api, client.client_id, back.searchParams.get('code')!, verifier);
    expect(t.scope).toBe('drive:read');
    const s = await mcpClient(api, t.access_token);
    const names = (await s.client.listTools()).tools.map((tool) => tool.name);
    expect(names).toContain('read');
    expect(names).not.toContain('upload');
    expect(await s.fail('upload', { path: 'x.md', content: 'x' })).toMatchObject({
      code: 'CREDENTIAL_READ_ONLY',
      status: 403,
    });
    expect((await s.ok<{ drive: { read_only: boolean } }>('overview')).drive.read_only).toBe(true);
    await s.close();
    await page.close();
  });

  it('the owner mints a read-only API key on the dashboard; the list says so and its writes are refused', async () => {
    const page = await browser.newPage();
    await claimedOwner(api, page);
    await page.goto(`${api.url}/settings/api-keys`);
    await page.getByLabel('Label').fill('reader');
    await page.getByRole('radio', { name: 'Read only' }).check();
    await page.getByRole('button', { name: 'Mint API key' }).click();
    const key = (await page.getByTestId('new-api-key').textContent())!.trim();
    expect(key).toMatch(/^ad_live_/);
    await expect.poll(() => page.getByRole('row', { name: key.slice(0, 14) }).textContent()).toContain('Read only');
    await screenshot(page, 'read-only', 'api-keys');

    const put = await fetch(`${api.url}/v0/artifacts/notes/a.md`, {
      method: 'PUT',
      headers: { ...bearer(key), 'content-type': 'text/plain' },
      body: 'no',
    });
    expect(put.status).toBe(403);
    expect(((await put.json()) as { detail: { error: { code: string } } }).detail.error.code).toBe(
      'CREDENTIAL_READ_ONLY',
    );
    const me = await fetch(`${api.url}/v0/drives/me`, { headers: bearer(key) });
    expect(((await me.json()) as { read_only: boolean }).read_only).toBe(true);

    // The default stays read and write.
    await page.getByLabel('Label').fill('writer');
    await page.getByRole('button', { name: 'Mint API key' }).click();
    const writer = (await page.getByTestId('new-api-key').textContent())!.trim();
    await expect
      .poll(() => page.getByRole('row', { name: writer.slice(0, 14) }).textContent())
      .toContain('Read and write');
    await page.close();
  });
});
