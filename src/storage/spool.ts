import { createHash, randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream, type WriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { crc32 } from 'node:zlib';

/**
 * Reads an upload body once, hashing (SHA-256 and CRC-32) and counting as it goes. Bodies up to
 * `memoryBytes` stay in memory; a larger one spills to a temp file, so memory never holds more
 * than the body and a 50 MB upload costs at most `memoryBytes` of RAM. Over `maxBytes` it stops
 * reading, removes what it wrote and reports `tooLarge`: nothing reaches object storage.
 */
export interface SpooledBody {
  hash: string;
  size: number;
  /** CRC-32 of the same pieces the hash saw: what S3 checks the bytes against on arrival (putBlob). */
  crc32: number;
  /**
   * The bytes: the buffer itself when they arrived in one piece, else a fresh stream of them (of the pieces as they
   * arrived when in memory: joining a megabyte into one more buffer cost the API a full garbage collection every ~20
   * uploads; docs/decisions/write-path.md, "What the API did with a megabyte").
   */
  body(): Buffer | Readable;
  dispose(): Promise<void>;
}

export type SpoolResult = { tooLarge: true } | ({ tooLarge: false } & SpooledBody);

export async function spoolBody(
  input: Readable,
  opts: { maxBytes: number; memoryBytes: number },
): Promise<SpoolResult> {
  const hasher = createHash('sha256');
  let checksum = 0;
  const chunks: Buffer[] = [];
  let size = 0;
  let file: { path: string; stream: WriteStream } | undefined;
  const dispose = async () => {
    if (!file) return;
    file.stream.destroy();
    await rm(file.path, { force: true });
  };
  try {
    for await (const chunk of input as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > opts.maxBytes) {
        await dispose();
        return { tooLarge: true };
      }
      hasher.update(chunk);
      checksum = crc32(chunk, checksum);
      if (file) {
        if (!file.stream.write(chunk)) await new Promise<void>((r) => file!.stream.once('drain', () => r()));
      } else {
        chunks.push(chunk);
        if (size > opts.memoryBytes) {
          const p = path.join(tmpdir(), `drive-upload-${randomUUID()}`);
          file = { path: p, stream: createWriteStream(p, { flags: 'wx' }) };
          for (const c of chunks.splice(0)) file.stream.write(c);
        }
      }
    }
    if (file)
      await new Promise<void>((resolve, reject) =>
        file!.stream.end((err?: Error | null) => (err ? reject(err) : resolve())),
      );
  } catch (err) {
    await dispose();
    throw err;
  }
  const spooled = file;
  return {
    tooLarge: false,
    hash: hasher.digest('hex'),
    size,
    crc32: checksum,
    body: () => {
      if (spooled) return createReadStream(spooled.path);
      return chunks.length <= 1 ? (chunks[0] ?? Buffer.alloc(0)) : Readable.from(chunks, { objectMode: false });
    },
    dispose,
  };
}
