import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/lib/config.js';
import { presignBlob } from '../../src/storage/blob-store.js';
import { createS3Client } from '../../src/storage/s3.js';
import { presignUploadPut } from '../../src/storage/upload-store.js';

/**
 * Presigned URLs are for clients: with S3_PUBLIC_ENDPOINT they name that host, while the API keeps talking to
 * S3_ENDPOINT.
 */
describe('S3_PUBLIC_ENDPOINT', () => {
  const env = { ...process.env, S3_ENDPOINT: 'http://minio:9000', S3_PUBLIC_ENDPOINT: 'http://localhost:9000' };

  it('presigned download and upload URLs use the public endpoint; requests use the internal one', async () => {
    const s3 = createS3Client(loadConfig(env).s3);
    const get = new URL(
      await presignBlob(s3, 'agent-drive', 'a'.repeat(64), {
        expiresInS: 60,
        contentType: 'text/plain',
        filename: 'x.txt',
      }),
    );
    expect(get.host).toBe('localhost:9000');
    const put = new URL(
      (
        await presignUploadPut(s3, 'agent-drive', 'uploads/x', {
          sizeBytes: 10,
          contentType: 'text/plain',
          expiresInS: 60,
        })
      ).url,
    );
    expect(put.host).toBe('localhost:9000');
    expect(await s3.config.endpoint!().then((e) => e.hostname)).toBe('minio');
  });

  it('unset, presigned URLs use S3_ENDPOINT', async () => {
    const s3 = createS3Client(loadConfig({ ...env, S3_PUBLIC_ENDPOINT: undefined }).s3);
    const get = new URL(
      await presignBlob(s3, 'agent-drive', 'a'.repeat(64), {
        expiresInS: 60,
        contentType: 'text/plain',
        filename: 'x.txt',
      }),
    );
    expect(get.host).toBe('minio:9000');
  });
});
