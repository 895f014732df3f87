import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApi } from '../helpers/api.js';
import { confirmSignUpInBrowser, launchBrowser } from '../helpers/browser.js';
import { startIdentityApi, uniqueEmail } from '../identity/helpers.js';
import { redirectSource } from '../../src/web/oauth-consent-page.js';
import { checkedAtBothWidths, screenshot } from '../viewer/browser.js';
import { listToolsRaw, mcpClient } from './helpers.js';
import { pkce, postForm, type Tokens } from './oauth-helpers.js';
import {
  mcpClientV2,
  startCallback,
  startMetadataHost,
  type Callback,
  type MetadataHost,
} from './oauth-client-fixtures.js';

/**
 * Sign-in as a person meets it (issue 36): an MCP client opens the authorization URL in Chromium, the person signs
 * up, clicks Allow, and the browser lands on the client's loopback callback with a code; the client exchanges it
 * with PKCE, and SDK clients of both lines list and call tools with the token. Once with a registered client (DCR),
 * once with a client ID metadata document served from 127.0.0.1.
 */
let api: TestApi;
let browser: Browser;
let context: BrowserContext;
let callback: Callback;
let host: MetadataHost;
const cspViolations: string[] = [];

beforeAll(async () => {
  api = await startIdentityApi();
  callback = await startCallback();
  host = await startMetadataHost();
  browser = await launchBrowser();
  // One browser profile for both tests: the second sign-in finds the person signed in already.
  context = await browser.newContext();
}, 600_000); // the first run may install Chromium
afterAll(async () => {
  await browser?.close();
  await callback?.close();
  await host?.close();
  await api?.close();
});

/** Records CSP complaints; resolves with the first, so a blocked navigation fails at once with Chromium's words. */
function watch(page: Page): Promise<string> {
  return new Promise((resolve) =>
    page.on('console', (m) => {
      if (!/Content Security Policy/i.test(m.text())) return;
      cspViolations.push(m.text());
      resolve(m.text());
    }),
  );
}

/** The callback's query, or the CSP complaint that kept the browser from getting there. */
async function landed(arrived: Promise<URLSearchParams>, blocked: Promise<string>) {
  const first = await Promise.race([arrived, blocked]);
  expect(first, String(first)).toBeInstanceOf(URLSearchParams);
  return first as URLSearchParams;
}

/** What a native client does: the authorization URL with PKCE, a state and the resource. */
function authorizationUrl(clientId: string, challenge: string, state: string, redirectUri = callback.url) {
  const q = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: redirectUri,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state,
    scope: 'drive',
    resource: `${api.url}/mcp`,
  });
  return `${api.url}/oauth2/authorize?${q}`;
}

async function register(name: string, redirectUri: string) {
  const reg = await fetch(`${api.url}/oauth2/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: name, redirect_uris: [redirectUri] }),
  });
  return ((await reg.json()) as { client_id: string }).client_id;
}

/** The client's side after the callback: code → tokens (PKCE), then a v1 and a v2 SDK client use the token. */
async function exchangeAndUse(clientId: string, code: string, verifier: string, redirectUri = callback.url) {
  const res = await postForm(api, '/oauth2/token', {
    grant_type: 'authorization_code',
    code,
    client_id: clientId,
    redirect_uri: redirectUri,
    code_verifier: verifier,
  });
  expect(res.status, await res.clone().text()).toBe(200);
  const tokens = (await res.json()) as Tokens;
  expect(tokens.access_token).toMatch(/^adat_/);

  const v1 = await mcpClient(api, tokens.access_token);
  expect((await v1.client.listTools()).tools.map((t) => t.name)).toContain('overview');
  const o1 = await v1.ok<{ drive: { drive_id: string; claimed: boolean } }>('overview');
  expect(o1.drive.claimed).toBe(true);
  await v1.close();

  const v2 = await mcpClientV2(api, tokens.access_token);
  expect(v2.getProtocolEra()).toBe('modern');
  expect((await v2.listTools()).tools.map((t) => t.name)).toContain('overview');
  const o2 = await v2.callTool({ name: 'overview', arguments: {} });
  expect(o2.isError, JSON.stringify(o2.content)).toBeFalsy();
  expect((o2.structuredContent as { drive: { drive_id: string } }).drive.drive_id).toBe(o1.drive.drive_id);
  await v2.close();
  return tokens;
}

describe('OAuth sign-in in a real browser', () => {
  it('a registered client: sign up, create a drive and allow; the callback gets the code; v1 and v2 clients use the token', async () => {
    const client_id = await register('Loopback CLI', callback.url);
    const { verifier, challenge } = pkce();
    const page = await context.newPage();
    const blocked = watch(page);
    // A long state (as some clients send): the whole request must survive the detour through sign-up.
    const state = `st-dcr-${'s'.repeat(400)}`;

    await page.goto(authorizationUrl(client_id, challenge, state));
    expect(new URL(page.url()).pathname).toBe('/auth/login');
    await page.getByRole('link', { name: 'Create one' }).click();
    const email = uniqueEmail('oauth-browser');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill('a long enough password');
    await page.getByRole('button', { name: 'Create account' }).click();
    await confirmSignUpInBrowser(page, api.url, email, 'a long enough password');

    // Back on the consent page (the sign-up's redirect), which names the client and where it will be sent.
    await page.waitForURL('**/oauth2/authorize?**');
    await expect.poll(() => page.getByText('Loopback CLI').count()).toBeGreaterThan(0);
    const arrived = callback.next();
    await page.getByRole('button', { name: 'Create a drive and allow' }).click();
    const query = await landed(arrived, blocked);
    await page.waitForURL(`${callback.url}?**`);
    expect(await page.getByText('Signed in. You can close this window.').count()).toBe(1);
    expect(query.get('state')).toBe(state);
    await exchangeAndUse(client_id, query.get('code')!, verifier);
    expect(cspViolations).toEqual([]);
    await page.close();
  });

  it('a client ID metadata document on 127.0.0.1: the signed-in person allows; the code works the same', async () => {
    const clientId = host.publish('/clients/browser.json', (url) => ({
      headers: { 'cache-control': 'max-age=600' },
      body: {
        client_id: url,
        client_name: 'Published Client',
        // A loopback redirect URI matches on any port (the published document cannot know the one in use).
        redirect_uris: [callback.url.replace(/:\d+\//, '/')],
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
      },
    }));
    const { verifier, challenge } = pkce();
    const page = await context.newPage();
    const blocked = watch(page);
    await page.goto(authorizationUrl(clientId, challenge, 'st-cimd'));
    expect(new URL(page.url()).pathname).toBe('/oauth2/authorize');
    expect(await page.getByText('Published Client').count()).toBe(1);
    expect(await page.locator('code', { hasText: new URL(host.base).host }).count()).toBeGreaterThan(0);
    const arrived = callback.next();
    await page.getByRole('button', { name: 'Allow', exact: true }).click();
    const query = await landed(arrived, blocked);
    expect(query.get('state')).toBe('st-cimd');
    const tokens = await exchangeAndUse(clientId, query.get('code')!, verifier);
    // Within the document's max-age, the page, its form post and the token exchange fetched it once.
    expect(host.hits('/clients/browser.json')).toBe(1);

    const refreshed = await postForm(api, '/oauth2/token', {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: clientId,
    });
    expect(refreshed.status, await refreshed.clone().text()).toBe(200);
    expect(cspViolations).toEqual([]);
    await page.close();
  });

  it('a callback on [::1], which CSP cannot name by address, is reached too', async () => {
    const v6 = await startCallback('::1');
    try {
      const clientId = await register('IPv6 CLI', v6.url);
      const { verifier, challenge } = pkce();
      const page = await context.newPage();
      const blocked = watch(page);
      await page.goto(authorizationUrl(clientId, challenge, 'st-v6', v6.url));
      const arrived = v6.next();
      await page.getByRole('button', { name: 'Allow', exact: true }).click();
      const query = await landed(arrived, blocked);
      expect(query.get('state')).toBe('st-v6');
      await exchangeAndUse(clientId, query.get('code')!, verifier, v6.url);
      await page.close();
    } finally {
      await v6.close();
    }
  });

  it('the consent page shows the drive by its contents and links to Connected apps, where Disconnect ends the tokens', async () => {
    const clientId = await register('Revocable App', callback.url);
    const { verifier, challenge } = pkce();
    const page = await context.newPage();
    const blocked = watch(page);
    await page.goto(authorizationUrl(clientId, challenge, 'st-apps'));
    // The person signed up in the first test: one drive, shown by what it holds, not by its id.
    expect(await page.getByTestId('consent-drive').textContent()).toMatch(/Your drive: empty so far/);
    await checkedAtBothWidths(page, 'oauth-consent');
    const arrived = callback.next();
    await page.getByRole('button', { name: 'Allow', exact: true }).click();
    const query = await landed(arrived, blocked);
    const tokens = await exchangeAndUse(clientId, query.get('code')!, verifier);

    // Where access is revoked, reached from the consent page's own link.
    await page.goto(authorizationUrl(clientId, challenge, 'st-apps-again'));
    await page.getByRole('link', { name: 'Connected apps' }).click();
    await page.waitForURL('**/settings/apps');
    const row = page.getByTestId('connected-app').filter({ hasText: 'Revocable App' });
    expect(await row.textContent()).toMatch(/Read and write/);
    expect(await page.getByTestId('connected-app').filter({ hasText: 'Loopback CLI' }).count()).toBe(1);
    await checkedAtBothWidths(page, 'connected-apps');
    await row.locator('summary', { hasText: 'Disconnect' }).click();
    await screenshot(page, 'web-screenshots', 'connected-apps-disconnect-asks');
    await row.getByRole('button', { name: 'Yes, disconnect' }).click();
    await page.waitForURL('**/settings/apps');
    expect(await page.getByTestId('notice').textContent()).toMatch(/Disconnected Revocable App/);
    expect(await page.getByTestId('connected-app').filter({ hasText: 'Revocable App' }).count()).toBe(0);

    // Both of its tokens are dead at once; the other apps are untouched.
    const mcp = await listToolsRaw(api, tokens.access_token);
    expect(mcp.status).toBe(401);
    const refreshed = await postForm(api, '/oauth2/token', {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: clientId,
    });
    expect(refreshed.status).toBe(400);
    expect(await page.getByTestId('connected-app').filter({ hasText: 'Loopback CLI' }).count()).toBe(1);
    expect(cspViolations).toEqual([]);
    await page.close();
  });

  it("names the redirect URI's origin in the consent page's form-action", () => {
    expect(redirectSource('http://127.0.0.1:5123/callback')).toBe('http://127.0.0.1:5123');
    expect(redirectSource('https://app.example/oauth/cb?x=1')).toBe('https://app.example');
    // CSP cannot spell [::1]: no source at all (the answer leaves by a page of its own), never a wildcard host.
    expect(redirectSource('http://[::1]:5123/callback')).toBeUndefined();
    expect(redirectSource('cursor://anysphere.cursor-mcp/oauth/callback')).toBe('cursor:');
  });
});
