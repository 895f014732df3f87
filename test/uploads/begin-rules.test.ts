import { describe, expect, it } from 'vitest';
import type { TestApi } from '../helpers/api.js';
import { useTestApi } from '../artifacts/client.js';
import { bytes, crc32cOf, uploadClient, uploadClientFor, waitFor, type UploadClient } from './helpers.js';

// A small drive: 10 000-byte quota, 4 000-byte per-artifact cap, 5-second sessions (long enough for a burst of begins
// on a busy machine).
let api: TestApi;
let u: UploadClient;
useTestApi({ STORAGE_QUOTA_BYTES: '10000', LARGE_UPLOAD_MAX_BYTES: '4000', UPLOAD_SESSION_TTL_S: '5' }, (a, d) => {
  api = a;
  u = uploadClientFor(a, d);
});

describe('begin: validation and limits', () => {
  it.each([
    [{ path: 'a//b' }, 400, 'INVALID_PATH'],
    [{ path: '/lead' }, 400, 'INVALID_PATH'],
    [{ path: 'x/../y' }, 400, 'INVALID_PATH'],
    [{ labels: ['Upper'] }, 400, 'INVALID_LABELS'],
    [{ labels: 'draft' }, 400, 'INVALID_LABELS'],
    [{ labels: ['a,b'] }, 400, 'INVALID_LABELS'],
    [{ labels: Array.from({ length: 17 }, (_, i) => `l${i}`) }, 400, 'INVALID_LABELS'],
    [{ metadata: [1] }, 400, 'INVALID_METADATA'],
    [{ metadata: 'x' }, 400, 'INVALID_METADATA'],
    [{ source: { refs: [{ type: 'x' }] } }, 400, 'INVALID_SOURCE'],
    [{ source: [] }, 400, 'INVALID_SOURCE'],
    [{ actor_name: 'a'.repeat(65) }, 400, 'INVALID_ACTOR'],
    [{ change_summary: 'c'.repeat(1001) }, 400, 'INVALID_CHANGE_SUMMARY'],
    [{ crc32c: 'abc' }, 400, 'INVALID_CRC32C'],
    [{ content_type: 'text/plain\r\nx: y' }, 400, 'INVALID_CONTENT_TYPE'],
    [{ path: '_wiki/entities/x.md' }, 403, 'WIKI_RESERVED'],
    [{ size_bytes: 4001 }, 413, 'ARTIFACT_TOO_LARGE'],
    [{ size_bytes: 0 }, 422, 'VALIDATION_ERROR'],
    [{ size_bytes: 1.5 }, 422, 'VALIDATION_ERROR'],
    [{ path: 7 }, 422, 'VALIDATION_ERROR'],
  ])('%j -> %i %s, and no session is opened', async (patch, status, code) => {
    const before = await sessionCount();
    const r = await u.begin({ path: 'ok/file.bin', size_bytes: 10, ...patch });
    expect([r.status, r.code]).toEqual([status, code]);
    expect(await sessionCount()).toBe(before);
  });

  it('accepts the boundary values: a 256-char path, 16 labels, the exact cap, a valid crc32c, null fields', async () => {
    const r = await u.begin({
      path: 'p'.repeat(256),
      size_bytes: 4000,
      labels: Array.from({ length: 16 }, (_, i) => `l${i}`),
      crc32c: crc32cOf(bytes(4)),
      metadata: null,
      source: null,
      actor_name: null,
      change_summary: null,
      if_match: null,
    });
    expect(r.status).toBe(200);
  });

  it('402 when usage plus open reservations would pass the quota; expiry releases the reservation', async () => {
    const d = await uploadClient(api);
    expect((await d.put('used.bin', bytes(3000))).status).toBe(200);
    const first = await d.begin({ path: 'r/1', size_bytes: 4000 });
    expect(first.status).toBe(200);
    const second = await d.begin({ path: 'r/2', size_bytes: 3001 });
    expect([second.status, second.code]).toEqual([402, 'STORAGE_QUOTA_EXCEEDED']);
    expect(second.json.detail.error).toMatchObject({
      used_bytes: 3000,
      reserved_bytes: 4000,
      limit_bytes: 10000,
      requested_bytes: 3001,
    });
    expect((await d.begin({ path: 'r/2', size_bytes: 3000 })).status).toBe(200);
    await waitFor(async () => (await d.session(first.json.upload_id))!.state === 'expired');
    expect((await d.begin({ path: 'r/3', size_bytes: 4000 })).status).toBe(200);
  });

  it('a reservation holds its room: a buffered PUT cannot take it, and the upload then commits within quota', async () => {
    const d = await uploadClient(api);
    expect((await d.put('used.bin', bytes(3000))).status).toBe(200);
    const payload = bytes(4000);
    const begun = await d.begin({ path: 'held/big.bin', size_bytes: payload.length });
    expect(begun.status).toBe(200);
    const squatter = await d.put('squat.bin', bytes(3001));
    expect([squatter.status, squatter.code]).toEqual([413, 'STORAGE_QUOTA_EXCEEDED']);
    expect((await d.put('fits.bin', bytes(3000))).status).toBe(200);
    expect(await d.putToUrl(begun.json, payload)).toBe(200);
    const committed = await d.commit(begun.json.upload_id);
    expect(committed.status).toBe(200);
    expect(committed.json.size_bytes).toBe(4000);
  });

  it('concurrent begins cannot reserve more than the quota together', async () => {
    const d = await uploadClient(api);
    const all = await Promise.all(Array.from({ length: 6 }, (_, i) => d.begin({ path: `c/${i}`, size_bytes: 3000 })));
    expect(all.filter((r) => r.status === 200)).toHaveLength(3);
    expect(all.filter((r) => r.status === 402)).toHaveLength(3);
  });
});

async function sessionCount(): Promise<number> {
  return Number(
    (
      await api.ctx.orm.em.fork().execute(`select count(*) as n from upload_sessions where drive_id = ?`, [u.driveId])
    )[0].n,
  );
}
