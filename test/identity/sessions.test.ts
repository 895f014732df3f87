import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApi } from '../helpers/api.js';
import { startIdentityApi, uniqueEmail, WebClient } from './helpers.js';

/**
 * Issue 23, finding 11: signing out did not end the session (the cookie alone was the session).
 * Sessions are now rows: sign-out ends one, "sign out everywhere" every one of the account.
 */
let api: TestApi;
beforeAll(async () => {
  api = await startIdentityApi();
});
afterAll(async () => api?.close());

const PASSWORD = 'correct horse battery';

async function signIn(email: string): Promise<WebClient> {
  const web = new WebClient(api.url);
  const form = await web.get('/auth/login');
  const res = await web.post('/auth/login', {
    csrf: WebClient.csrfOf(form.body),
    email,
    password: PASSWORD,
    return_to: '/dashboard',
  });
  expect(res.res.status, res.body).toBe(303);
  return web;
}

/** A browser that presents a copied cookie (as someone who kept it would). */
function withCookie(cookie: string): WebClient {
  const web = new WebClient(api.url);
  web.cookie = cookie;
  return web;
}

describe('server-side sessions', () => {
  it('the old cookie is refused after sign-out, for pages and for form posts', async () => {
    const web = new WebClient(api.url);
    await web.signUp(uniqueEmail('signout'), PASSWORD);
    const dash = await web.get('/dashboard');
    expect(dash.res.status).toBe(200);
    const kept = web.cookie;
    const csrf = WebClient.csrfOf(dash.body);

    const out = await web.post('/auth/logout', { csrf });
    expect(out.res.status).toBe(303);
    const replay = withCookie(kept);
    const page = await replay.get('/dashboard');
    expect(page.res.status).toBe(303);
    expect(page.res.headers.get('location')).toBe('/auth/login?return_to=%2Fdashboard');
    // A form post with the old cookie and its CSRF token does nothing either.
    const mint = await replay.post('/dashboard/keys', { csrf, drive_id: 'drv_x', label: 'late' });
    expect(mint.res.status).toBe(303);
    expect((await replay.get('/settings')).res.status).toBe(303);
  });

  it("sign out everywhere ends the account's other sessions; it needs the CSRF token", async () => {
    const email = uniqueEmail('everywhere');
    const first = new WebClient(api.url);
    await first.signUp(email, PASSWORD);
    const second = await signIn(email);
    const stranger = new WebClient(api.url);
    await stranger.signUp(uniqueEmail('stranger'), PASSWORD);
    expect((await second.get('/dashboard')).res.status).toBe(200);

    const dash = await first.get('/dashboard');
    expect(dash.body).toContain('action="/auth/logout-everywhere"');
    expect((await first.post('/auth/logout-everywhere', {})).res.status).toBe(403);
    expect((await second.get('/dashboard')).res.status).toBe(200);

    const out = await first.post('/auth/logout-everywhere', { csrf: WebClient.csrfOf(dash.body) });
    expect(out.res.status).toBe(303);
    expect((await second.get('/dashboard')).res.status).toBe(303);
    expect((await first.get('/dashboard')).res.status).toBe(303);
    // Another account's session is untouched; signing in again works.
    expect((await stranger.get('/dashboard')).res.status).toBe(200);
    expect((await (await signIn(email)).get('/dashboard')).res.status).toBe(200);
  });
});
