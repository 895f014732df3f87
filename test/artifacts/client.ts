import { HeadObjectCommand } from '@aws-sdk/client-s3';
import { blobKey } from '../../src/storage/blob-store.js';
import { afterAll, beforeAll, expect } from 'vitest';
import { purgeUnreferencedBlobs } from '../../src/files/blobs.js';
import { purgeExpired } from '../../src/files/purge.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { createTenant } from '../helpers/tenant.js';

/**
 * A small HTTP client for one fresh drive (or, given `tenant`, for that drive through another API instance), so suites
 * read as requests and expectations.
 */
export async function driveClient(api: TestApi, tenant?: Awaited<ReturnType<typeof createTenant>>) {
  tenant ??= await createTenant(api.ctx);
  const call = async (
    method: string,
    path: string,
    opts: { body?: BodyInit; json?: unknown; headers?: Record<string, string> } = {},
  ) => {
    const headers: Record<string, string> = { ...tenant.auth, ...(opts.headers ?? {}) };
    let body = opts.body;
    if (opts.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(opts.json);
    }
    const res = await fetch(`${api.url}${path}`, { method, headers, body });
    const text = Buffer.from(await res.arrayBuffer());
    let json: any;
    try {
      json = JSON.parse(text.toString('utf8'));
    } catch {
      json = undefined;
    }
    return { status: res.status, headers: res.headers, json, bytes: text, code: codeOf(json) };
  };
  return {
    driveId: tenant.driveId,
    email: tenant.email,
    apiKey: tenant.apiKey,
    auth: tenant.auth,
    call,
    put: (path: string, body: string | Uint8Array, headers: Record<string, string> = {}) =>
      call('PUT', `/v0/artifacts/${path}`, {
        body: (typeof body === 'string' ? Buffer.from(body) : body) as BodyInit,
        headers,
      }),
    get: (path: string, headers: Record<string, string> = {}) => call('GET', path, { headers }),
    events: async (query = '') => (await call('GET', `/v0/events${query}`)).json.items as any[],
  };
}
export type DriveClient = Awaited<ReturnType<typeof driveClient>>;

/** Raw SQL against the test database, for arranging purge times and checking what is left. */
export const sqlOn = (api: TestApi, q: string, p: unknown[] = []) => api.ctx.orm.em.fork().execute(q, p);

/** Whether the object for a content hash exists in the API's bucket. */
export const s3ObjectExistsIn = (api: TestApi, hash: string) =>
  api.ctx.s3.send(new HeadObjectCommand({ Bucket: api.ctx.config.s3.bucket, Key: blobKey(hash) })).then(
    () => true,
    () => false,
  );

/** Whether the bytes of a content hash are kept: an object in the bucket, or inline in its blob row. */
export async function objectExistsIn(api: TestApi, hash: string): Promise<boolean> {
  const inline = await sqlOn(api, `select 1 from blobs where hash = ? and content is not null`, [hash]);
  return inline.length > 0 || s3ObjectExistsIn(api, hash);
}

/** Starts an in-process API for the suite (settings overridden) and hands it, with a fresh drive, to `ready`. */
export function useTestApi(overrides: Record<string, string>, ready: (api: TestApi, d: DriveClient) => void): void {
  let api: TestApi | undefined;
  beforeAll(async () => {
    api = await startTestApi(overrides);
    ready(api, await driveClient(api));
  });
  afterAll(async () => api?.close());
}

/**
 * Makes blobs look unused for two hours, so a purge with the normal grace period may take them.
 * Suites never purge with a zero grace: the test database is shared, and a zero grace would let a
 * purge in one suite race uploads of another (which is exactly what the grace prevents).
 */
export const ageBlobs = (api: TestApi, hashes: string[]) =>
  sqlOn(api, `update blobs set last_used_at = now() - interval '2 hours' where hash = any(array[?]::text[])`, [hashes]);

/**
 * The envelope's code; a 422 standard validation body (`detail` is a list) has none, so it reads as the catalogue's
 * VALIDATION_ERROR.
 */
function codeOf(json: any): string | undefined {
  if (Array.isArray(json?.detail)) return 'VALIDATION_ERROR';
  return json?.detail?.error?.code;
}

/**
 * Eight rounds of: a blob left unreferenced and aged, then a PUT of the same content racing its purge; the PUT must
 * succeed and its bytes survive a second purge.
 */
export async function uploadsRacePurge(api: TestApi, d: DriveClient, prefix: string): Promise<void> {
  for (let round = 0; round < 8; round++) {
    const content = `${prefix}-race-${round}-${Math.random()}`;
    const old = (await d.put(`${prefix}/old-${round}`, content)).json;
    await d.call('DELETE', `/v0/artifacts/${old.art_id}`);
    await sqlOn(api, `update artifacts set purge_at = now() - interval '1 second' where id = ?`, [old.art_id]);
    await purgeExpired(api.ctx);
    await ageBlobs(api, [old.hash]);
    const [fresh] = await Promise.all([d.put(`${prefix}/new-${round}`, content), purgeUnreferencedBlobs(api.ctx, 60)]);
    expect(fresh.status).toBe(200);
    await purgeUnreferencedBlobs(api.ctx, 60);
    expect(await objectExistsIn(api, fresh.json.hash)).toBe(true);
    expect((await d.get(`/v0/artifacts/${fresh.json.art_id}/download`)).bytes.toString()).toBe(content);
  }
}
