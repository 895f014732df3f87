import { CreateBucketCommand, HeadBucketCommand, S3Client } from '@aws-sdk/client-s3';
import type { Config } from '../lib/config.js';

/**
 * Presigned URLs go to clients, which may reach the store at another address than we do
 * (S3_PUBLIC_ENDPOINT). The host is part of the signature, so such URLs are signed by a second
 * client configured with the public endpoint; presignerFor() picks it for a given client.
 */
const presigners = new WeakMap<S3Client, S3Client>();

export function presignerFor(client: S3Client): S3Client {
  return presigners.get(client) ?? client;
}

export function createS3Client(s3: Config['s3']): S3Client {
  if (!s3.endpoint) throw new Error('S3_ENDPOINT is not set');
  const client = newClient(s3, s3.endpoint);
  if (s3.publicEndpoint && s3.publicEndpoint !== s3.endpoint) presigners.set(client, newClient(s3, s3.publicEndpoint));
  return client;
}

function newClient(s3: Config['s3'], endpoint: string): S3Client {
  return new S3Client({
    endpoint,
    region: s3.region,
    forcePathStyle: s3.forcePathStyle,
    credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
    // Checksums on every request cost a full extra pass over large bodies; the gateway verifies Content-MD5/SHA itself.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    maxAttempts: 2,
  });
}

export async function ensureBucket(client: S3Client, bucket: string): Promise<void> {
  try {
    await client.send(new HeadBucketCommand({ Bucket: bucket }));
  } catch (err) {
    const status = (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
    if (status !== 404) throw err;
    await client.send(new CreateBucketCommand({ Bucket: bucket }));
  }
}

export async function checkBucket(client: S3Client, bucket: string): Promise<void> {
  await client.send(new HeadBucketCommand({ Bucket: bucket }));
}
