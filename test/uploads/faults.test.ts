import { Client, Connection } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { createS3Client } from '../../src/storage/s3.js';
import { useTestApi } from '../artifacts/client.js';
import type { TestApi } from '../helpers/api.js';
import { bytes, sha256, uploadClientFor, type UploadClient } from './helpers.js';

let api: TestApi;
let u: UploadClient;
useTestApi({}, (a, d) => {
  api = a;
  u = uploadClientFor(a, d);
});

/** Runs `fn` with the API's client for one dependency pointed at a port nobody listens on. */
async function withDeadDependency<T>(which: 's3' | 'temporal', fn: () => Promise<T>): Promise<T> {
  const saved = { s3: api.ctx.s3, temporal: api.ctx.temporal };
  if (which === 's3') api.ctx.s3 = createS3Client({ ...api.ctx.config.s3, endpoint: 'http://127.0.0.1:9' });
  else api.ctx.temporal = new Client({ connection: Connection.lazy({ address: '127.0.0.1:9', connectTimeout: '1s' }) });
  try {
    return await fn();
  } finally {
    if (which === 's3') api.ctx.s3.destroy();
    Object.assign(api.ctx, saved);
  }
}

const sessions = async () =>
  Number(
    (
      await api.ctx.orm.em.fork().execute(`select count(*) as n from upload_sessions where drive_id = ?`, [u.driveId])
    )[0].n,
  );

describe('dependency faults', () => {
  it('Temporal unreachable at begin: 503 UPLOADS_UNAVAILABLE and no session (no row without a timer)', async () => {
    const before = await sessions();
    const r = await withDeadDependency('temporal', () => u.begin({ path: 'f/a.bin', size_bytes: 10 }));
    expect([r.status, r.code]).toEqual([503, 'UPLOADS_UNAVAILABLE']);
    expect(await sessions()).toBe(before);
  });

  it('S3 unreachable at commit: 503 STORAGE_FAILURE, nothing written, the session stays open and commits later', async () => {
    const data = bytes(5000);
    const b = (await u.begin({ path: 'f/b.bin', size_bytes: data.length })).json;
    expect(await u.putToUrl(b, data)).toBe(200);
    const r = await withDeadDependency('s3', () => u.commit(b.upload_id));
    expect([r.status, r.code]).toEqual([503, 'STORAGE_FAILURE']);
    expect(await u.artifactsAt('f/b.bin')).toBe(0);
    expect((await u.session(b.upload_id))!.state).toBe('begun');
    const ok = await u.commit(b.upload_id);
    expect([ok.status, ok.json.hash]).toEqual([200, sha256(data)]);
  });
});
