import { DeleteObjectCommand, GetObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { createReadStream, createWriteStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/** Where graphs live in the bucket: one object per build, named by the snapshot it holds. */
export const graphObjectKey = (driveId: string, builtXmin: string) => `semantic-graphs/${driveId}/${builtXmin}.usearch`;

/** The semantic graphs' files in object storage (src/search/semantic-graph-store.ts), beside blobs and uploads. */
export class GraphObjects {
  constructor(
    private readonly s3: S3Client,
    private readonly bucket: string,
  ) {}

  async upload(key: string, file: string): Promise<void> {
    const { size } = await stat(file);
    await this.s3.send(
      new PutObjectCommand({
        Bucket: this.bucket,
        Key: key,
        Body: createReadStream(file),
        ContentLength: size,
        ContentType: 'application/octet-stream',
      }),
    );
  }

  async download(key: string, file: string): Promise<void> {
    const out = await this.s3.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
    await pipeline(out.Body as Readable, createWriteStream(file));
  }

  async remove(key: string): Promise<void> {
    await this.s3.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
  }
}
