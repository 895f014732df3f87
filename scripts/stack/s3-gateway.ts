import { chmodSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { ensureBinary, VERSITYGW } from './binaries.js';
import { assertPortFree, spawnManaged, waitForPort } from './process.js';

/** Runs the versitygw S3 gateway over a local folder (one sub-folder per bucket). */
export async function startS3Gateway(opts: {
  dataDir: string;
  port: number;
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
  /** Defaults to the cached or freshly built binary. */
  bin?: string;
  log: (m: string) => void;
}) {
  await assertPortFree(opts.port, 'the S3 gateway', 'S3_PORT');
  const dataDir = path.resolve(opts.dataDir);
  const root = path.join(dataDir, 's3');
  // Only the gateway (this process's user) reads the store: compile engines run as another account.
  mkdirSync(root, { recursive: true });
  chmodSync(root, 0o700);
  const proc = spawnManaged(
    's3-gateway',
    opts.bin ?? (await ensureBinary(VERSITYGW, opts.log)),
    [
      '--port',
      `127.0.0.1:${opts.port}`,
      '--access',
      opts.accessKeyId,
      '--secret',
      opts.secretAccessKey,
      '--region',
      opts.region,
      '--quiet',
      'posix',
      root,
    ],
    { logDir: path.join(dataDir, 'logs'), pidDir: path.join(dataDir, 'run') },
  );
  await waitForPort(opts.port, proc, { log: opts.log });
  return { endpoint: `http://127.0.0.1:${opts.port}`, process: proc };
}
