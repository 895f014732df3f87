import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { createTenant } from '../helpers/tenant.js';
import { startIdentityApi } from '../identity/helpers.js';
import { mcpClient, type McpSession } from './helpers.js';

/**
 * Single-use token uploads (spec 3.6, 4.7): minted by the upload_url tool, spent by PUT /v0/upload/{token} with no
 * Authorization.
 */
let api: TestApi;
let limited: TestApi;
let broken: TestApi;
let s: McpSession;
let driveId: string;

beforeAll(async () => {
  api = await startIdentityApi();
  // Other API processes over the same database: a tight budget and quota, and one whose object storage is down.
  limited = await startTestApi({ WRITE_BUDGET_PER_HOUR: '2', STORAGE_QUOTA_BYTES: '2000' });
  // Object storage unreachable, and every byte goes there (nothing is kept inline in PostgreSQL).
  broken = await startTestApi({ S3_ENDPOINT: 'http://127.0.0.1:9', INLINE_BLOB_MAX_BYTES: '0' });
  const t = await createTenant(api.ctx);
  driveId = t.driveId;
  s = await mcpClient(api, t.apiKey, { 'x-drive-actor': 'uploader' });
});
afterAll(async () => {
  await s?.close();
  await Promise.all([api?.close(), limited?.close(), broken?.close()]);
});

type Minted = {
  upload_url: string;
  method: string;
  headers: Record<string, string>;
  max_bytes: number;
  expires_at: string;
};
const mint = (args: Record<string, unknown>, session = s) => session.ok<Minted>('upload_url', args);
const put = (url: string, body: string | Buffer, contentType = 'text/plain', base?: TestApi) =>
  fetch(base ? url.replace(api.url, base.url) : url, {
    method: 'PUT',
    headers: { 'content-type': contentType },
    body: typeof body === 'string' ? body : new Uint8Array(body),
  });
const codeOf = async (res: Response) =>
  ((await res.json()) as { detail: { error: { code: string } } }).detail.error.code;
const versionsOf = async (path: string) =>
  Number(
    (
      await api.ctx.orm.em
        .fork()
        .execute(
          `select count(*) as n from artifact_versions v join artifacts a on a.id = v.art_id where a.drive_id = ? and a.path = ?`,
          [driveId, path],
        )
    )[0].n,
  );

describe('token uploads', () => {
  it('mints a token that freezes the upload fields and uploads once with no Authorization header', async () => {
    const t = await mint({
      path: 'tok/report.txt',
      content_type: 'text/plain',
      labels: ['draft'],
      metadata: { k: 1 },
      change_summary: 'via token',
      max_bytes: 100,
    });
    expect(t).toMatchObject({ method: 'PUT', headers: { 'content-type': 'text/plain' }, max_bytes: 100 });
    expect(t.upload_url).toMatch(new RegExp(`^${api.url}/v0/upload/adup_`));
    const res = await put(t.upload_url, 'hello token');
    expect(res.status, await res.clone().text()).toBe(200);
    expect(await res.json()).toMatchObject({
      path: 'tok/report.txt',
      labels: ['draft'],
      metadata: { k: 1 },
      size_bytes: 11,
      version_number: 1,
    });
    const v = await s.ok<{ items: { actor_name: string; change_summary: string }[] }>('versions', {
      ref: 'tok/report.txt',
    });
    expect(v.items[0]).toMatchObject({ actor_name: 'uploader', change_summary: 'via token' });
    const again = await put(t.upload_url, 'hello token');
    expect(again.status).toBe(409);
    expect(await codeOf(again)).toBe('TOKEN_REPLAYED');
    expect((await s.fail('upload_url', { path: '_wiki/x.md' })).code).toBe('WIKI_RESERVED');
    expect((await s.fail('upload_url', { path: 'a/../b' })).code).toBe('INVALID_PATH');
  });

  it('10 concurrent PUTs of one token: exactly one 200 and one version', async () => {
    const t = await mint({ path: 'tok/race.txt', content_type: 'text/plain' });
    const statuses = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        put(t.upload_url, `body ${i}`).then(async (r) => ({
          status: r.status,
          code: r.status === 200 ? null : await codeOf(r),
        })),
      ),
    );
    expect(statuses.filter((x) => x.status === 200)).toHaveLength(1);
    expect(statuses.filter((x) => x.status !== 200).every((x) => x.status === 409 && x.code === 'TOKEN_REPLAYED')).toBe(
      true,
    );
    expect(await versionsOf('tok/race.txt')).toBe(1);
  });

  it('refuses with every status of spec 4.7, and a refused PUT writes nothing and leaves the token usable', async () => {
    const ct = await mint({ path: 'tok/ct.json', content_type: 'application/json' });
    const mismatch = await put(ct.upload_url, '{}', 'text/plain');
    expect([mismatch.status, await codeOf(mismatch)]).toEqual([400, 'CONTENT_TYPE_MISMATCH']);

    const unknown = await put(`${api.url}/v0/upload/adup_nope`, 'x');
    expect([unknown.status, await codeOf(unknown)]).toEqual([401, 'TOKEN_INVALID']);

    const expired = await mint({ path: 'tok/expired.txt', content_type: 'text/plain' });
    await api.ctx.orm.em
      .fork()
      .execute(
        `update upload_tokens set expires_at = now() - interval '1 second' where drive_id = ? and path = 'tok/expired.txt'`,
        [driveId],
      );
    const exp = await put(expired.upload_url, 'x');
    expect([exp.status, await codeOf(exp)]).toEqual([401, 'TOKEN_EXPIRED']);

    const wiki = await mint({ path: 'tok/wiki.md', content_type: 'text/plain' });
    await api.ctx.orm.em
      .fork()
      .execute(`update upload_tokens set path = '_wiki/sneaky.md' where drive_id = ? and path = 'tok/wiki.md'`, [
        driveId,
      ]);
    const reserved = await put(wiki.upload_url, 'x');
    expect([reserved.status, await codeOf(reserved)]).toEqual([403, 'WIKI_RESERVED']);

    const guarded = await mint({ path: 'tok/report.txt', content_type: 'text/plain', if_match: 5 });
    const pre = await put(guarded.upload_url, 'x');
    expect([pre.status, await codeOf(pre)]).toEqual([412, 'PRECONDITION_FAILED']);

    const small = await mint({ path: 'tok/small.txt', content_type: 'text/plain', max_bytes: 10 });
    const over = await put(small.upload_url, 'x'.repeat(11));
    expect([over.status, await codeOf(over)]).toEqual([413, 'BYTES_LIMIT']);
    expect(await versionsOf('tok/small.txt')).toBe(0);
    // Refused, not spent: the same token still uploads.
    expect((await put(small.upload_url, 'x'.repeat(10))).status).toBe(200);

    const down = await mint({ path: 'tok/down.txt', content_type: 'text/plain' });
    const storage = await put(down.upload_url, 'bytes', 'text/plain', broken);
    expect([storage.status, await codeOf(storage)]).toEqual([503, 'STORAGE_FAILURE']);
    expect((await put(down.upload_url, 'bytes')).status).toBe(200);
  });

  it('413 over the drive quota, 429 when the write budget is spent, 401 once the drive is deleted', async () => {
    const t = await createTenant(api.ctx);
    const other = await mcpClient(api, t.apiKey);
    const big = await mint({ path: 'q/big.bin', content_type: 'application/octet-stream' }, other);
    const quota = await put(big.upload_url, Buffer.alloc(3000), 'application/octet-stream', limited);
    expect([quota.status, await codeOf(quota)]).toEqual([413, 'STORAGE_QUOTA_EXCEEDED']);
    const tokens = await Promise.all(
      [1, 2].map((i) => mint({ path: `q/${i}.txt`, content_type: 'text/plain' }, other)),
    );
    // The quota refusal above charged one write (like a refused REST write); one more fits in the budget of 2.
    expect((await put(tokens[0].upload_url, 'one', 'text/plain', limited)).status).toBe(200);
    const spent = await put(tokens[1].upload_url, 'two', 'text/plain', limited);
    expect([spent.status, await codeOf(spent)]).toEqual([429, 'RATE_LIMITED']);
    expect(spent.headers.get('retry-after')).toBeTruthy();

    await api.ctx.orm.em
      .fork()
      .execute(`update drives set deleted_at = now(), purge_at = now() + interval '1 day' where id = ?`, [t.driveId]);
    const gone = await put(tokens[1].upload_url, 'two');
    expect([gone.status, await codeOf(gone)]).toEqual([401, 'TOKEN_INVALID']);
    await other.close();
  });

  it('is listed in the OpenAPI document', async () => {
    const doc = await (await fetch(`${api.url}/openapi.json`)).json();
    const op = doc.paths['/v0/upload/{token}'].put;
    expect(op.security).toBeUndefined();
    expect(Object.keys(op.responses)).toEqual(
      expect.arrayContaining(['200', '400', '401', '403', '409', '412', '413', '429', '503']),
    );
  });
});
