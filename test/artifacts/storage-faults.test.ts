import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/lib/config.js';
import { startS3Gateway } from '../../scripts/stack/s3-gateway.js';
import { createS3Client, ensureBucket } from '../../src/storage/s3.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { driveClient, type DriveClient } from './client.js';

/** A private S3 gateway this suite can stop and start, over its own folder, with the API pointed at it. */
const port = Number(process.env.TEST_PORT_BASE ?? 15400) + 20;
const dataDir = mkdtempSync(path.join(tmpdir(), 'drive-s3-fault-'));
let gateway: Awaited<ReturnType<typeof startS3Gateway>>;
let api: TestApi;
let d: DriveClient;

async function startGateway() {
  const cfg = loadConfig(process.env).s3;
  gateway = await startS3Gateway({ dataDir, port, ...cfg, log: () => undefined });
  const s3 = createS3Client({ ...cfg, endpoint: gateway.endpoint });
  await ensureBucket(s3, cfg.bucket);
  s3.destroy();
}

async function objectCount(): Promise<number> {
  const out = await api.ctx.s3.send(new ListObjectsV2Command({ Bucket: api.ctx.config.s3.bucket }));
  return out.KeyCount ?? 0;
}

beforeAll(async () => {
  await startGateway();
  api = await startTestApi({
    S3_ENDPOINT: gateway.endpoint,
    MAX_UPLOAD_BYTES: '2000',
    UPLOAD_SPOOL_MEMORY_BYTES: '500',
  });
  d = await driveClient(api);
});
afterAll(async () => {
  await api?.close();
  await gateway?.process.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const sql = (q: string, p: unknown[] = []) => api.ctx.orm.em.fork().execute(q, p);

describe('object storage faults and limits', () => {
  it('S3 down: PUT is 503 STORAGE_FAILURE and leaves no artifact, version, event or blob; after restart the same PUT succeeds', async () => {
    const existing = (await d.put('f/existing', 'before outage')).json;
    await gateway.process.stop();
    const body = `written during outage ${Math.random()}`;
    const r = await d.put('f/new.txt', body, { 'x-drive-labels': 'x' });
    expect([r.status, r.code]).toEqual([503, 'STORAGE_FAILURE']);
    const over = await d.put('f/existing', `overwrite during outage ${Math.random()}`);
    expect([over.status, over.code]).toEqual([503, 'STORAGE_FAILURE']);
    expect(await sql(`select 1 from artifacts where drive_id = ? and path = 'f/new.txt'`, [d.driveId])).toHaveLength(0);
    expect(
      await sql(`select 1 from artifact_versions where drive_id = ? and art_id <> ?`, [d.driveId, existing.art_id]),
    ).toHaveLength(0);
    expect(
      await sql(`select 1 from artifact_versions where art_id = ? and version_number > 1`, [existing.art_id]),
    ).toHaveLength(0);
    expect((await d.events()).map((e) => e.action)).toEqual(['artifact.created']);
    expect(
      await sql(`select 1 from blobs where hash = ?`, [createHash('sha256').update(body).digest('hex')]),
    ).toHaveLength(0);
    const dl = await d.get(`/v0/artifacts/${existing.art_id}/download`);
    expect([dl.status, dl.code]).toEqual([503, 'STORAGE_FAILURE']);

    await startGateway();
    const again = await d.put('f/new.txt', body, { 'x-drive-labels': 'x' });
    expect(again.status).toBe(200);
    expect(again.json).toMatchObject({ version_number: 1, labels: ['x'] });
    expect((await d.get(`/v0/artifacts/${again.json.art_id}/download`)).bytes.toString()).toBe(body);
  });

  it('413 ARTIFACT_TOO_LARGE over the cap, declared or streamed, with nothing written to S3', async () => {
    const before = await objectCount();
    const declared = await d.put('big/declared', 'x'.repeat(2001));
    expect([declared.status, declared.code]).toEqual([413, 'ARTIFACT_TOO_LARGE']);
    const chunks = Array.from({ length: 30 }, () => new TextEncoder().encode('y'.repeat(100)));
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        const c = chunks.shift();
        if (c) controller.enqueue(c);
        else controller.close();
      },
    });
    const res = await fetch(`${api.url}/v0/artifacts/big/streamed`, {
      method: 'PUT',
      headers: d.auth,
      body: stream,
      duplex: 'half',
    } as RequestInit);
    expect(res.status).toBe(413);
    expect((await res.json()).detail.error.code).toBe('ARTIFACT_TOO_LARGE');
    expect(await objectCount()).toBe(before);
    expect(await sql(`select 1 from artifacts where drive_id = ? and path like 'big/%'`, [d.driveId])).toHaveLength(0);
    const atCap = await d.put('big/at-cap', 'z'.repeat(2000));
    expect(atCap.status).toBe(200);
    expect((await d.get(`/v0/artifacts/${atCap.json.art_id}/download`)).bytes.toString()).toBe('z'.repeat(2000));
    expect(await objectCount()).toBe(before + 1);
  });

  it('an unchanged overwrite and a copy store nothing new in S3', async () => {
    const a = (await d.put('dedup/a', 'same bytes')).json;
    const count = await objectCount();
    expect((await d.put('dedup/a', 'same bytes')).json.version_number).toBe(2);
    expect((await d.call('POST', `/v0/artifacts/${a.art_id}/copy`, { json: { path: 'dedup/b' } })).status).toBe(200);
    expect(await objectCount()).toBe(count);
  });
});
