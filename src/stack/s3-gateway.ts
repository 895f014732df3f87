import { mkdirSync } from 'node:fs';
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
  log: (m: string) => void;
}) {
  await assertPortFree(opts.port, 'the S3 gateway');
  const bin = ensureBinary(VERSITYGW, opts.log);
  const dataDir = path.resolve(opts.dataDir);
  const root = path.join(dataDir, 's3');
  mkdirSync(root, { recursive: true });
  const proc = spawnManaged(
    's3-gateway',
    bin,
    [
      '--port', `127.0.0.1:${opts.port}`,
      '--access', opts.accessKeyId,
      '--secret', opts.secretAccessKey,
      '--region', opts.region,
      '--quiet',
      'posix', root,
    ],
    { logDir: path.join(dataDir, 'logs') },
  );
  await waitForPort(opts.port, proc);
  return { endpoint: `http://127.0.0.1:${opts.port}`, process: proc };
}
