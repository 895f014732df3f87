import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { createTenant } from '../helpers/tenant.js';
import { purgeExpiredCredentials } from '../../src/identity/expired-credentials.js';

/** The cleanup run drops credentials nobody can use any more, and open MCP client registration is limited per IP. */
let api: TestApi;
let driveId: string;
const tag = `${Date.now()}${Math.random().toString(36).slice(2, 8)}`;

beforeAll(async () => {
  api = await startTestApi({ REGISTRATIONS_PER_IP_PER_HOUR: '2' });
  driveId = (await createTenant(api.ctx)).driveId;
});
afterAll(async () => {
  await api?.close();
});

const sql = (text: string, params: unknown[] = []) => api.ctx.orm.em.fork().execute(text, params);
const exists = async (table: string, key: string, value: string) =>
  (await sql(`select 1 from ${table} where ${key} = ?`, [value])).length === 1;

describe('expired credentials', () => {
  it('are purged after their grace; live ones, and a spent refresh token before its expiry, stay', async () => {
    const user = `usr_${tag}`;
    await sql(`insert into human_users (id, email, password_hash) values (?, ?, 'x')`, [user, `${tag}@example.test`]);
    const uploadToken = (name: string, expires: string) =>
      sql(
        `insert into upload_tokens (token_hash, drive_id, principal_kind, credential_id, scope, path, content_type, max_bytes, expires_at)
           values (?, ?, 'api_key', 'k', 'write', 'a.txt', 'text/plain', 10, now() + ?::interval)`,
        [`${name}-${tag}`, driveId, expires],
      );
    await uploadToken('old-upload', '-2 days');
    await uploadToken('fresh-upload', '-1 hour'); // expired, but within the day's grace
    const client = (id: string, age: string) =>
      sql(
        `insert into oauth_clients (client_id, redirect_uris, created_at) values (?, array['https://c.example/cb'], now() - ?::interval)`,
        [`${id}-${tag}`, age],
      );
    await client('unused-client', '31 days');
    await client('young-client', '1 day');
    await client('consented-client', '31 days');
    await sql(
      `insert into oauth_grants (id, client_id, drive_id, user_id, scope, created_at) values (?, ?, ?, ?, 'drive', now() - interval '3 days')`,
      [`grant-dead-${tag}`, `consented-client-${tag}`, driveId, user],
    );
    await sql(
      `insert into oauth_grants (id, client_id, drive_id, user_id, scope, created_at) values (?, ?, ?, ?, 'drive', now() - interval '3 days')`,
      [`grant-live-${tag}`, `consented-client-${tag}`, driveId, user],
    );
    const token = (name: string, grant: string, expires: string, used = false) =>
      sql(
        `insert into oauth_tokens (token_hash, grant_id, kind, expires_at, used_at) values (?, ?, 'refresh', now() + ?::interval, ${used ? 'now()' : 'null'})`,
        [`${name}-${tag}`, `${grant}-${tag}`, expires],
      );
    await token('expired-refresh', 'grant-dead', '-2 days');
    await token('spent-refresh', 'grant-live', '20 days', true);
    await sql(
      `insert into oauth_codes (code_hash, client_id, drive_id, user_id, redirect_uri, code_challenge, scope, expires_at)
               values (?, ?, ?, ?, 'https://c.example/cb', 'x', 'drive', now() - interval '2 days')`,
      [`old-code-${tag}`, `young-client-${tag}`, driveId, user],
    );
    await sql(
      `insert into id_jag_replays (issuer, jti, expires_at) values ('https://idp.example', ?, now() - interval '1 minute')`,
      [`jti-${tag}`],
    );

    const purged = await purgeExpiredCredentials(api.ctx);
    // Counts cover the whole database (other suites' rows too), so they are at least ours.
    expect(purged.upload_tokens).toBeGreaterThanOrEqual(1);
    expect(purged.oauth_clients).toBeGreaterThanOrEqual(1);

    expect(await exists('upload_tokens', 'token_hash', `old-upload-${tag}`)).toBe(false);
    expect(await exists('upload_tokens', 'token_hash', `fresh-upload-${tag}`)).toBe(true);
    expect(await exists('oauth_tokens', 'token_hash', `expired-refresh-${tag}`)).toBe(false);
    expect(await exists('oauth_tokens', 'token_hash', `spent-refresh-${tag}`)).toBe(true);
    expect(await exists('oauth_grants', 'id', `grant-dead-${tag}`)).toBe(false);
    expect(await exists('oauth_grants', 'id', `grant-live-${tag}`)).toBe(true);
    expect(await exists('oauth_codes', 'code_hash', `old-code-${tag}`)).toBe(false);
    expect(await exists('oauth_clients', 'client_id', `unused-client-${tag}`)).toBe(false);
    expect(await exists('oauth_clients', 'client_id', `young-client-${tag}`)).toBe(true);
    expect(await exists('oauth_clients', 'client_id', `consented-client-${tag}`)).toBe(true);
    expect(await exists('id_jag_replays', 'jti', `jti-${tag}`)).toBe(false);
  });

  it('MCP client registration is limited per client IP: 429 rate_limited with Retry-After, another address unaffected', async () => {
    const register = (ip: string) =>
      fetch(`${api.url}/oauth2/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': ip },
        body: JSON.stringify({ redirect_uris: ['https://c.example/cb'], client_name: `limited-${tag}` }),
      });
    const ip = `203.0.113.${Math.floor(Math.random() * 250) + 1}`;
    expect((await register(ip)).status).toBe(201);
    expect((await register(ip)).status).toBe(201);
    const refused = await register(ip);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await refused.json()).toMatchObject({ error: 'rate_limited' });
    expect(
      Number((await sql(`select count(*) as n from oauth_clients where client_name = ?`, [`limited-${tag}`]))[0].n),
    ).toBe(2);
    expect((await register(`198.51.100.${Math.floor(Math.random() * 250) + 1}`)).status).toBe(201);
  });
});
