import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApi } from '../helpers/api.js';
import { createTenant } from '../helpers/tenant.js';
import { listApiKeys } from '../../src/identity/api-keys.js';
import {
  accessTokenFor,
  bearer,
  claimThroughPages,
  registerAnonymous,
  startIdentityApi,
  uniqueEmail,
  WebClient,
} from './helpers.js';

let api: TestApi;
beforeAll(async () => {
  api = await startIdentityApi();
});
afterAll(async () => api?.close());

async function snapshot(driveId: string) {
  const em = api.ctx.orm.em.fork();
  const [drive] = await em.execute('select * from drives where id = ?', [driveId]);
  const keys = await em.execute('select id, revoked_at from api_keys where drive_id = ? order by id', [driveId]);
  const identities = await em.execute(
    'select id, status, assertion_jti from agent_identities where drive_id = ? order by id',
    [driveId],
  );
  const usage = await em.execute('select kind, count from usage_counters where drive_id = ? order by kind', [driveId]);
  const writes = await em.execute('select bucket, count from rate_counters where drive_id = ? order by bucket', [
    driveId,
  ]);
  return JSON.stringify({ drive, keys, identities, usage, writes });
}

describe('tenant isolation', () => {
  it('a token of drive A never reads or changes drive B through any /v0 endpoint', async () => {
    const a = await registerAnonymous(api);
    const aToken = bearer(await accessTokenFor(api, a.identity_assertion));
    const bEmail = uniqueEmail('tenant-b');
    const b = await createTenant(api.ctx, bEmail);
    const before = await snapshot(b.driveId);

    const doc = await (await fetch(`${api.url}/openapi.json`)).json();
    const calls: [string, string][] = [];
    for (const [p, ops] of Object.entries(doc.paths as Record<string, Record<string, unknown>>)) {
      if (!p.startsWith('/v0/')) continue;
      for (const method of Object.keys(ops)) calls.push([method.toUpperCase(), p]);
    }
    // Also paths not (yet) routed, and id-bearing guesses a client could try.
    calls.push(
      ['GET', `/v0/drives/${b.driveId}`],
      ['DELETE', `/v0/drives/${b.driveId}`],
      ['GET', `/v0/drives/${b.driveId}/trash`],
    );
    expect(calls.length).toBeGreaterThanOrEqual(5);

    for (const [method, template] of calls) {
      const path = template.replace('{drive_id}', b.driveId).replace(/\{[^}]+\}/g, 'x');
      const stop = new AbortController();
      const res = await fetch(`${api.url}${path}`, {
        method,
        // Headers never select the tenant.
        headers: { ...aToken, 'x-drive-actor': b.driveId, 'x-drive-id': b.driveId, 'content-type': 'application/json' },
        body: ['GET', 'HEAD'].includes(method) ? undefined : '{}',
        signal: stop.signal,
      });
      // A stream (the change feed) never ends: its catch-up is read for a moment, then the request is dropped.
      const body = res.headers.get('content-type')?.startsWith('text/event-stream')
        ? await firstMoment(res, stop)
        : await res.text();
      // X-Drive-Actor is attribution only: A's own events may record the string it was given, so drop those echoes.
      const text = body.replaceAll(`"actor_name":"${b.driveId}"`, '"actor_name":"(header echo)"');
      // An error may echo the requested path; a success must not mention B at all, and nothing reveals B's owner.
      if (res.status < 400) expect(text, `${method} ${path}`).not.toContain(b.driveId);
      else expect(text.replaceAll(path, ''), `${method} ${path}`).not.toContain(b.driveId);
      expect(text, `${method} ${path}`).not.toContain(bEmail);
    }

    const me = await (
      await fetch(`${api.url}/v0/drives/me`, { headers: { ...aToken, 'x-drive-actor': b.driveId } })
    ).json();
    expect(me.drive_id).toBe(a.drive_id);
    const usage = await (await fetch(`${api.url}/v0/drives/me/usage`, { headers: aToken })).json();
    expect(usage.drive_id).toBe(a.drive_id);
    expect(await snapshot(b.driveId)).toBe(before);
    expect((await fetch(`${api.url}/v0/drives/me`, { headers: b.auth })).status).toBe(200);
  });

  it('a signed-in human cannot mint or revoke keys on a drive they do not own', async () => {
    const victimEmail = uniqueEmail('victim');
    const victim = await createTenant(api.ctx, victimEmail);
    const [victimKey] = await listApiKeys(api.ctx.orm.em.fork(), victim.driveId);
    const web = new WebClient(api.url);
    // Web accounts are not email-verified: signing up with the owner's email must not grant the drive.
    await web.signUp(victimEmail.toUpperCase());
    const dash = await web.get('/dashboard');
    expect(dash.res.status).toBe(200);
    expect(dash.body).not.toContain(victim.driveId);
    const csrf = WebClient.csrfOf(dash.body);

    const mint = await web.post('/dashboard/keys', { csrf, drive_id: victim.driveId, label: 'stolen' });
    expect(mint.res.status).toBe(403);
    expect(mint.body).not.toContain('ad_live_');
    const revoke = await web.post(`/dashboard/keys/${victimKey.id}/revoke`, { csrf, drive_id: victim.driveId });
    expect(revoke.res.status).toBe(403);
    expect(await listApiKeys(api.ctx.orm.em.fork(), victim.driveId)).toHaveLength(1);
    expect((await fetch(`${api.url}/v0/drives/me`, { headers: victim.auth })).status).toBe(200);
  });

  it("pages need a session; an API key of another drive is not revoked through one's own drive id", async () => {
    const anon = new WebClient(api.url);
    const res = await anon.get('/dashboard');
    expect(res.res.status).toBe(303);
    expect(res.res.headers.get('location')).toBe('/auth/login?return_to=%2Fdashboard');

    const victim = await createTenant(api.ctx, uniqueEmail('victim2'));
    const [victimKey] = await listApiKeys(api.ctx.orm.em.fork(), victim.driveId);
    const web = new WebClient(api.url);
    await web.signUp(uniqueEmail('owner'));
    const own = await claimThroughPages(api, web);
    const dash = await web.get('/dashboard');
    expect(dash.body).toContain(own.drive_id);
    const revoke = await web.post(`/dashboard/keys/${victimKey.id}/revoke`, {
      csrf: WebClient.csrfOf(dash.body),
      drive_id: own.drive_id,
    });
    expect(revoke.res.status).toBe(404);
    expect((await fetch(`${api.url}/v0/drives/me`, { headers: victim.auth })).status).toBe(200);
  });
});

/** What an endless text/event-stream answer sends within its first second. */
async function firstMoment(res: Response, stop: AbortController): Promise<string> {
  const timer = setTimeout(() => stop.abort(), 1000);
  let text = '';
  try {
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>)
      text += Buffer.from(chunk).toString('utf8');
  } catch {
    // aborted after the moment
  }
  clearTimeout(timer);
  return text;
}
