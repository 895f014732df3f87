import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { Crc32c } from '../../src/storage/crc32c.js';
import type { TestApi } from '../helpers/api.js';
import { useTestApi } from '../artifacts/client.js';
import { uploadClientFor, type UploadClient } from './helpers.js';

let api: TestApi;
let u: UploadClient;
useTestApi({}, (a, d) => {
  api = a;
  u = uploadClientFor(a, d);
});

/** A deterministic pseudo-random byte stream of `size` bytes, generated in 1 MiB chunks (never held whole). */
function generated(size: number, seed: Buffer): () => Readable {
  return () =>
    Readable.from(
      (function* () {
        let counter = 0;
        for (let left = size; left > 0; left -= 1 << 20) {
          const block = createHash('sha512').update(seed).update(String(counter++)).digest();
          const chunk = Buffer.alloc(Math.min(left, 1 << 20));
          for (let i = 0; i < chunk.length; i += block.length) block.copy(chunk, i);
          chunk.writeUInt32BE(counter, 0);
          yield chunk;
        }
      })(),
    );
}

async function digest(stream: AsyncIterable<Uint8Array>) {
  const sha = createHash('sha256');
  const crc = new Crc32c();
  for await (const c of stream) (sha.update(c), crc.update(c));
  return { sha256: sha.digest('hex'), crc32c: crc.base64() };
}

describe('a 20 MB upload through the presigned URL', () => {
  it('streams up, commits, and downloads byte-identical (sha256 and crc32c round trip)', async () => {
    const size = 20 * 1024 * 1024 + 123;
    const source = generated(size, randomBytes(16));
    const expected = await digest(source());
    const b = await u.begin({
      path: 'large/twenty.bin',
      size_bytes: size,
      crc32c: expected.crc32c,
      content_type: 'application/x-test',
    });
    expect(b.status).toBe(200);
    const put = await fetch(b.json.upload_url, {
      method: 'PUT',
      headers: { 'content-type': b.json.headers['content-type'], 'content-length': String(size) },
      body: Readable.toWeb(source()) as ReadableStream,
      duplex: 'half',
    } as RequestInit);
    expect(put.status).toBe(200);
    const c = await u.commit(b.json.upload_id);
    expect(c.status).toBe(200);
    expect(c.json).toMatchObject({ size_bytes: size, hash: expected.sha256, content_type: 'application/x-test' });
    const dl = await fetch(`${api.url}/v0/artifacts/${c.json.art_id}/download`, { headers: u.auth });
    expect(dl.status).toBe(200);
    expect(await digest(Readable.fromWeb(dl.body as never))).toEqual(expected);
  });
});
