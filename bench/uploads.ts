import { GetObjectCommand } from '@aws-sdk/client-s3';
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { buildWorkflowBundle } from '../scripts/build-workflows.js';
import { loadConfig } from '../src/lib/config.js';
import { createOrm, migrate } from '../src/db/orm.js';
import { mintApiKey } from '../src/identity/api-keys.js';
import { createDrive } from '../src/drives/drives.js';
import { blobKey } from '../src/storage/blob-store.js';
import { createS3Client } from '../src/storage/s3.js';
import { startStack } from '../scripts/stack/index.js';
import { spawnManaged, waitForPort } from '../scripts/stack/process.js';

/**
 * `npm run bench:uploads`: a 200 MB large upload end to end against a real stack, with the API as
 * its own process so its memory can be read from /proc. Begin, PUT the bytes to the presigned
 * URL (they never pass through the API), commit (the API streams the object once through
 * SHA-256 and CRC-32C and copies it server-side), download through the API, compare hashes.
 * Prints the API's peak RSS against the payload, and the download time against a direct S3 GET.
 */
const MB = 1024 * 1024;
const SIZE = Number(process.env.BENCH_UPLOAD_MB ?? 200) * MB;
const BASE = Number(process.env.BENCH_PORT_BASE ?? 18950);
const DATA_DIR = `.data/bench-uploads-${BASE}`;
const API_PORT = BASE + 10;

const env = {
  ...process.env,
  NODE_ENV: 'development',
  LOG_LEVEL: 'warn',
  DATA_DIR,
  EMBEDDED_PG_PORT: String(BASE + 1),
  TEMPORAL_PORT: String(BASE + 2),
  TEMPORAL_UI_PORT: String(BASE + 3),
  S3_PORT: String(BASE + 4),
  TEMPORAL_HTTP_PORT: String(BASE + 5),
  TEMPORAL_METRICS_PORT: String(BASE + 6),
  TEMPORAL_TASK_QUEUE: `agent-drive-bench-${BASE}`,
  HOST: '127.0.0.1',
  PORT: String(API_PORT),
} as NodeJS.ProcessEnv;

const status = (pid: number) => readFileSync(`/proc/${pid}/status`, 'utf8');
function kb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status(pid));
  if (!m) throw new Error(`API process ${pid} has no ${field} (it has exited; see ${DATA_DIR}/logs/api.log)`);
  return Number(m[1]);
}
const mb = (kib: number) => `${(kib / 1024).toFixed(1)} MB`;
const secs = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

/** Random bytes in 1 MiB chunks, generated twice from one seed (to hash, then to send) and never held whole. */
function payload(seed: Buffer, size: number): Readable {
  return Readable.from(
    (function* () {
      for (let i = 0, left = size; left > 0; i++, left -= MB) {
        const block = createHash('sha512').update(seed).update(String(i)).digest();
        const chunk = Buffer.allocUnsafe(Math.min(MB, left));
        for (let off = 0; off < chunk.length; off += block.length) block.copy(chunk, off);
        yield chunk;
      }
    })(),
  );
}

async function sha256(stream: AsyncIterable<Uint8Array>): Promise<string> {
  const h = createHash('sha256');
  for await (const c of stream) h.update(c);
  return h.digest('hex');
}

async function timed<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const t = performance.now();
  const r = await fn();
  return [r, performance.now() - t];
}

rmSync(DATA_DIR, { recursive: true, force: true });
const config = loadConfig(env);
await buildWorkflowBundle();
const stack = await startStack(config, (m) => console.log(`[stack] ${m}`), { mailCatcher: false });
Object.assign(env, stack.env);
const logDir = path.resolve(DATA_DIR, 'logs');
const orm = await createOrm(env.DATABASE_URL!, { poolMax: 2 });
const worker = spawnManaged('worker', process.execPath, ['--import', 'tsx', 'src/worker.ts'], { logDir, env });
const api = spawnManaged('api', process.execPath, ['--import', 'tsx', 'src/main.ts'], { logDir, env });
api.child.once(
  'exit',
  (code, signal) => (code || signal) && console.error(`[bench] API exited early: code ${code} signal ${signal}`),
);
try {
  await migrate(orm);
  await waitForPort(API_PORT, api);
  const pid = api.child.pid!;
  const base = `http://127.0.0.1:${API_PORT}`;
  const em = orm.em.fork();
  const drive = await createDrive(em, { ownerEmail: 'bench@example.test' });
  const auth = { authorization: `Bearer ${(await mintApiKey(em, drive.id, 'bench')).key}` };

  const call = async (method: string, url: string, json?: unknown) => {
    const res = await fetch(`${base}${url}`, {
      method,
      headers: { ...auth, 'content-type': 'application/json' },
      body: json ? JSON.stringify(json) : undefined,
    });
    const body = await res.json();
    if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${JSON.stringify(body)}`);
    return body;
  };
  let phase: 'put' | 'commit' | 'download' = 'put';
  const phasePeak = { put: 0, commit: 0, download: 0 };
  async function roundTrip(pathName: string, seed: Buffer, size: number) {
    phase = 'put';
    const begin = await call('POST', '/v0/uploads', { path: pathName, size_bytes: size });
    const [put, putMs] = await timed(() =>
      fetch(begin.upload_url, {
        method: 'PUT',
        headers: { 'content-type': begin.headers['content-type'], 'content-length': begin.headers['content-length'] },
        body: Readable.toWeb(payload(seed, size)) as ReadableStream,
        duplex: 'half',
      } as RequestInit),
    );
    if (put.status !== 200) throw new Error(`presigned PUT: ${put.status} ${await put.text()}`);
    phase = 'commit';
    const [art, commitMs] = await timed(() => call('POST', `/v0/uploads/${begin.upload_id}/commit`));
    phase = 'download';
    const [downloaded, downloadMs] = await timed(async () => {
      const dl = await fetch(`${base}/v0/artifacts/${art.art_id}/download`, { headers: auth });
      return sha256(Readable.fromWeb(dl.body as never));
    });
    return { art, putMs, commitMs, downloaded, downloadMs };
  }

  // Warm-up (code paths loaded, pools open), then reset the peak so it measures only the 200 MB run.
  await roundTrip('warm/1mb.bin', randomBytes(16), MB);
  const rssBefore = kb(pid, 'VmRSS');
  const hwmBefore = kb(pid, 'VmHWM');
  let reset = true;
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
  } catch {
    reset = false;
  }
  let sampledPeak = 0;
  let samplerError: unknown;
  const sampler = setInterval(() => {
    try {
      const rss = kb(pid, 'VmRSS');
      sampledPeak = Math.max(sampledPeak, rss);
      phasePeak[phase] = Math.max(phasePeak[phase], rss);
    } catch (err) {
      samplerError = err;
      clearInterval(sampler);
    }
  }, 25);

  const seed = randomBytes(16);
  const expected = await sha256(payload(seed, SIZE));
  const run = await roundTrip('bench/200mb.bin', seed, SIZE);
  clearInterval(sampler);
  if (samplerError) throw samplerError as Error; // what kb() throws: a read of /proc failed
  const hwmAfter = kb(pid, 'VmHWM');
  const peak = Math.max(reset ? hwmAfter : sampledPeak, sampledPeak);

  const s3 = createS3Client({ ...config.s3, endpoint: env.S3_ENDPOINT });
  const [, directMs] = await timed(async () =>
    sha256(
      (await s3.send(new GetObjectCommand({ Bucket: config.s3.bucket, Key: blobKey(expected) })))
        .Body as AsyncIterable<Uint8Array>,
    ),
  );
  s3.destroy();

  const ok = run.art.hash === expected && run.downloaded === expected && run.art.size_bytes === SIZE;
  console.log(`\nlarge upload of ${SIZE / MB} MB through the presigned URL, API as a separate process (pid ${pid})`);
  console.log(
    `  hashes        : commit ${run.art.hash === expected ? 'ok' : 'MISMATCH'}, download ${run.downloaded === expected ? 'ok' : 'MISMATCH'}`,
  );
  console.log(
    `  presigned PUT : ${secs(run.putMs)} (${(SIZE / MB / (run.putMs / 1000)).toFixed(0)} MB/s, bytes never touch the API)`,
  );
  console.log(`  commit        : ${secs(run.commitMs)} (stream once through SHA-256, server-side copy)`);
  console.log(
    `  API download  : ${secs(run.downloadMs)} vs direct S3 GET ${secs(directMs)}: ratio ${(run.downloadMs / directMs).toFixed(2)}`,
  );
  console.log(
    `  API RSS before: ${mb(rssBefore)} (peak so far ${mb(hwmBefore)}; peak reset ${reset ? 'via clear_refs' : 'unavailable, using 25 ms samples'})`,
  );
  console.log(
    `  API peak RSS  : ${mb(peak)} during the run (sampled max ${mb(sampledPeak)}); growth ${mb(peak - rssBefore)}`,
  );
  console.log(
    `  by phase      : PUT ${mb(phasePeak.put)}, commit ${mb(phasePeak.commit)}, download ${mb(phasePeak.download)} (sampled max RSS)`,
  );
  console.log(
    `  ratio         : peak RSS / payload = ${(peak / 1024 / (SIZE / MB)).toFixed(3)}; growth / payload = ${((peak - rssBefore) / 1024 / (SIZE / MB)).toFixed(3)}`,
  );
  if (!ok) process.exitCode = 1;
} finally {
  await api.stop();
  await worker.stop();
  await orm.close();
  await stack.stop();
}
