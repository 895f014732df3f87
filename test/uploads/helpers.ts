import { PutObjectCommand, HeadObjectCommand, DeleteObjectCommand } from '@aws-sdk/client-s3';
import { createHash, randomBytes } from 'node:crypto';
import { Crc32c } from '../../src/storage/crc32c.js';
import { uploadObjectKey } from '../../src/storage/upload-store.js';
import type { TestApi } from '../helpers/api.js';
import { driveClient, type DriveClient } from '../artifacts/client.js';

/** A fresh drive's client with the large-upload calls. */
export async function uploadClient(api: TestApi) {
  return uploadClientFor(api, await driveClient(api));
}

/** A drive client with the large-upload calls, plus direct access to the store and the session rows. */
export function uploadClientFor(api: TestApi, d: DriveClient) {
  const bucket = api.ctx.config.s3.bucket;
  const key = (uploadId: string) => uploadObjectKey(d.driveId, uploadId);
  return {
    ...d,
    begin: (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
      d.call('POST', '/v0/uploads', { json: body, headers }),
    commit: (uploadId: string) => d.call('POST', `/v0/uploads/${uploadId}/commit`),
    /** PUT to the presigned URL as a client would: the signed headers, no Authorization. */
    async putToUrl(out: { upload_url: string; headers: Record<string, string> }, bytes: Uint8Array) {
      const headers = Object.fromEntries(Object.entries(out.headers).filter(([k]) => k !== 'content-length'));
      const res = await fetch(out.upload_url, { method: 'PUT', headers, body: bytes as BodyInit });
      await res.arrayBuffer();
      return res.status;
    },
    /** Writes the temporary object directly (as a store that does not enforce the signed size would accept it). */
    putObjectDirect: (uploadId: string, bytes: Uint8Array) =>
      api.ctx.s3.send(
        new PutObjectCommand({ Bucket: bucket, Key: key(uploadId), Body: bytes, ContentLength: bytes.length }),
      ),
    deleteObjectDirect: (uploadId: string) =>
      api.ctx.s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: key(uploadId) })),
    /** The temporary object's size, or undefined when there is none. */
    objectSize: (uploadId: string) =>
      api.ctx.s3.send(new HeadObjectCommand({ Bucket: bucket, Key: key(uploadId) })).then(
        (h) => Number(h.ContentLength ?? 0),
        () => undefined,
      ),
    objectExists: (uploadId: string) =>
      api.ctx.s3.send(new HeadObjectCommand({ Bucket: bucket, Key: key(uploadId) })).then(
        () => true,
        () => false,
      ),
    session: async (uploadId: string) =>
      (await api.ctx.orm.em.fork().execute(`select * from upload_sessions where id = ?`, [uploadId]))[0] as
        Record<string, any> | undefined,
    artifactsAt: async (path: string) =>
      Number(
        (
          await api.ctx.orm.em
            .fork()
            .execute(`select count(*) as n from artifacts where drive_id = ? and path = ?`, [d.driveId, path])
        )[0].n,
      ),
  };
}
export type UploadClient = ReturnType<typeof uploadClientFor>;

export const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
export const crc32cOf = (b: Uint8Array) => new Crc32c().update(b).base64();
export const bytes = (n: number) => new Uint8Array(randomBytes(n));

/** Polls until `check` returns a truthy value or the time is up. */
export async function waitFor<T>(
  check: () => Promise<T | undefined | false>,
  timeoutMs = 20_000,
  everyMs = 200,
): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > until) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
