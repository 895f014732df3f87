/**
 * PUT and GET of 1 KB and 1 MB objects through the API and directly against the S3 gateway, in
 * the same run on the same embedded stack, printing requests/s, MB/s and the API/direct ratio.
 * Brings up its own stack (PostgreSQL, Temporal, versitygw) under .data/bench on ports 18901-18904
 * and runs the API as its own process on 18905 (as in production, so the load generator does not
 * share the API's event loop), loopback only; each case is bounded by a request count and a time limit.
 *
 *   npm run bench:artifacts            (BENCH_SECONDS, BENCH_CONCURRENCY tune it)
 */
import { GetObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { loadConfig } from '../src/config.js';
import { closeContext, createContext } from '../src/context.js';
import { createOrm, migrate } from '../src/db/orm.js';
import { mintApiKey } from '../src/identity/api-keys.js';
import { createDrive } from '../src/drive/drives.js';
import { startStack } from '../src/stack/index.js';
import { cpuPerRequest, cpuSnapshot, settle } from './process-cpu.js';
import { spawnManaged, waitForPort, type ManagedProcess } from '../src/stack/process.js';

const BASE = 18900;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 4);
const SIZES = [
  { label: '1 KB', bytes: 1024, maxRequests: 3000 },
  { label: '1 MB', bytes: 1024 * 1024, maxRequests: 400 },
];

const env = {
  ...process.env,
  NODE_ENV: 'production',
  LOG_LEVEL: 'silent',
  DATA_DIR: '.data/bench',
  EMBEDDED_PG_PORT: String(BASE + 1),
  TEMPORAL_PORT: String(BASE + 2),
  TEMPORAL_UI_PORT: String(BASE + 3),
  S3_PORT: String(BASE + 4),
  TEMPORAL_HTTP_PORT: String(BASE + 5),
  TEMPORAL_METRICS_PORT: String(BASE + 6),
  TEMPORAL_TASK_QUEUE: 'agent-drive-bench',
  STORAGE_QUOTA_BYTES: String(64 * 1024 ** 3),
  // The bench measures throughput, not the per-credential write budget.
  WRITE_BUDGET_PER_HOUR: String(1_000_000),
};

interface Result {
  requests: number;
  seconds: number;
  /** CPU ms per request by process role (see process-cpu.ts). */
  cpu: string;
}

/** The API's pid, so its CPU is reported apart from the stack's. */
let apiPid: number | undefined;

/** Runs `op(i)` from CONCURRENCY loops until maxRequests or the time limit. */
async function measure(maxRequests: number, op: (i: number) => Promise<void>): Promise<Result> {
  let next = 0;
  await settle({ api: apiPid });
  const cpuBefore = cpuSnapshot({ api: apiPid });
  const started = process.hrtime.bigint();
  const deadline = Date.now() + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < maxRequests && Date.now() < deadline) await op(next++);
    }),
  );
  // The phase ends when the work it caused has finished, including what runs after the responses.
  const seconds = Number(process.hrtime.bigint() - started) / 1e9 + (await settle({ api: apiPid }));
  return { requests: next, seconds, cpu: cpuPerRequest(cpuBefore, cpuSnapshot({ api: apiPid }), next) };
}

/** Unique content per request (so content addressing cannot skip a write), built cheaply from one random block. */
function payloadFactory(bytes: number) {
  const block = randomBytes(bytes);
  return (i: number) => {
    const b = Buffer.from(block);
    b.writeUInt32BE(i, 0);
    b.writeUInt32BE(process.pid, 4);
    return b;
  };
}

/** The API is called through node:http with a keep-alive agent, as the AWS SDK calls S3, so both sides pay the same client costs. */
const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
function request(url: string, opts: { method: string; headers: Record<string, string>; body?: Buffer }): Promise<{ status: number; bytes: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: opts.method, headers: { ...opts.headers, ...(opts.body ? { 'content-length': String(opts.body.length) } : {}) }, agent }, (res) => {
      let bytes = 0;
      // Only a JSON body (a PUT's record, an error) is decoded; downloads are just counted, as the S3 side's are.
      const json = (res.headers['content-type'] ?? '').includes('json');
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => {
        bytes += c.length;
        if (json) chunks.push(c);
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes, text: json ? Buffer.concat(chunks).toString('utf8') : '' }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

async function drain(body: unknown): Promise<number> {
  let n = 0;
  for await (const c of body as AsyncIterable<Uint8Array>) n += c.length;
  return n;
}

async function main() {
  rmSync(env.DATA_DIR, { recursive: true, force: true });
  const config0 = loadConfig(env);
  const log = (m: string) => process.stderr.write(`[bench-stack] ${m}\n`);
  const stack = await startStack(config0, log);
  const fullEnv: Record<string, string | undefined> = { ...env, ...stack.env };
  let ctx: Awaited<ReturnType<typeof createContext>> | undefined;
  let apiProcess: ManagedProcess | undefined;
  try {
    const orm = await createOrm(fullEnv.DATABASE_URL!, { poolMax: 2 });
    await migrate(orm);
    await orm.close();
    const apiPort = BASE + 10;
    const url = `http://127.0.0.1:${apiPort}`;
    const apiEnv = { ...fullEnv, HOST: '127.0.0.1', PORT: String(apiPort), PUBLIC_BASE_URL: url };
    apiProcess = spawnManaged('bench-api', process.execPath, [...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(env.DATA_DIR, 'prof')}`] : []), '--import', 'tsx', path.resolve('src/main.ts')], {
      logDir: path.resolve(env.DATA_DIR, 'logs'),
      env: apiEnv as NodeJS.ProcessEnv,
    });
    await waitForPort(apiPort, apiProcess);
    apiPid = apiProcess.child.pid;
    const config = loadConfig(apiEnv);
    ctx = await createContext(config, 'bench');
    const em = ctx.orm.em.fork();
    const drive = await createDrive(em, { ownerEmail: 'bench@example.test' });
    const { key } = await mintApiKey(em, drive.id, 'bench');
    const auth = { authorization: `Bearer ${key}` };
    const s3: S3Client = ctx.s3;
    const bucket = config.s3.bucket;

    const rows: string[][] = [];
    const cpuRows: string[] = [];
    for (const size of SIZES) {
      const make = payloadFactory(size.bytes);
      const tag = size.label.replace(' ', '').toLowerCase();
      // warm-up both paths; "GET again" reads this object over and over (the API serves it from its blob cache)
      await s3.send(new PutObjectCommand({ Bucket: bucket, Key: `bench-direct/${tag}/warm`, Body: make(1e9), ContentLength: size.bytes }));
      const warm = await request(`${url}/v0/artifacts/bench/${tag}/warm`, { method: 'PUT', headers: auth, body: make(1e9 + 1) });
      const warmArt = JSON.parse(warm.text) as { art_id: string };

      const directPut = await measure(size.maxRequests, async (i) => {
        await s3.send(new PutObjectCommand({ Bucket: bucket, Key: `bench-direct/${tag}/${i}`, Body: make(i), ContentLength: size.bytes }));
      });
      const putIds: string[] = [];
      const apiPut = await measure(size.maxRequests, async (i) => {
        const res = await request(`${url}/v0/artifacts/bench/${tag}/${i}`, { method: 'PUT', headers: auth, body: make(i + 5e8) });
        if (res.status !== 200) throw new Error(`API PUT ${res.status}: ${res.text}`);
        putIds[i] = (JSON.parse(res.text) as { art_id: string }).art_id;
      });
      // Each object read once: nothing is in the API's blob cache (or the gateway's page cache is as cold as it gets).
      const distinct = Math.min(directPut.requests, putIds.length);
      const directGetEach = await measure(distinct, async (i) => {
        const out = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: `bench-direct/${tag}/${i}` }));
        if ((await drain(out.Body)) !== size.bytes) throw new Error('short direct GET');
      });
      const apiGetEach = await measure(distinct, async (i) => {
        const res = await request(`${url}/v0/artifacts/${putIds[i]}/download`, { method: 'GET', headers: auth });
        if (res.status !== 200 || res.bytes !== size.bytes) throw new Error(`API GET ${res.status}, ${res.bytes} bytes`);
      });
      const directGet = await measure(size.maxRequests, async () => {
        const out = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: `bench-direct/${tag}/warm` }));
        if ((await drain(out.Body)) !== size.bytes) throw new Error('short direct GET');
      });
      const apiGet = await measure(size.maxRequests, async () => {
        const res = await request(`${url}/v0/artifacts/${warmArt.art_id}/download`, { method: 'GET', headers: auth });
        if (res.status !== 200) throw new Error(`API GET ${res.status}`);
        if (res.bytes !== size.bytes) throw new Error('short API GET');
      });
      const fmt = (r: Result) => {
        const rps = r.requests / r.seconds;
        return { rps, mbps: (rps * size.bytes) / 1024 ** 2 };
      };
      const cases = [['PUT', directPut, apiPut], ['GET once', directGetEach, apiGetEach], ['GET again', directGet, apiGet]] as const;
      for (const [op, direct, viaApi] of cases) {
        const dr = fmt(direct);
        const ar = fmt(viaApi);
        rows.push([
          `${op} ${size.label}`,
          `${dr.rps.toFixed(0)}`, `${dr.mbps.toFixed(1)}`,
          `${ar.rps.toFixed(0)}`, `${ar.mbps.toFixed(1)}`,
          `${(ar.rps / dr.rps).toFixed(2)}`,
          `${direct.requests}/${viaApi.requests}`,
        ]);
        cpuRows.push(`${op} ${size.label}  direct ${direct.cpu}\n${' '.repeat(op.length + size.label.length + 3)}API    ${viaApi.cpu}`);
      }
    }
    const header = ['case', 'direct req/s', 'direct MB/s', 'API req/s', 'API MB/s', 'API/direct', 'requests (d/api)'];
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
    const line = (cells: string[]) => cells.map((c, i) => c.padStart(widths[i])).join('  ');
    console.log(`\nartifact bench: concurrency ${CONCURRENCY}, <= ${SECONDS}s per case, loopback, versitygw posix backend\n`);
    console.log(line(header));
    for (const r of rows) console.log(line(r));
    console.log('\nCPU per request, by process (ms; 2 cores = 2000 ms/s between them):');
    for (const r of cpuRows) console.log(r);
  } finally {
    agent.destroy();
    await apiProcess?.stop();
    if (ctx) await closeContext(ctx);
    await stack.stop();
  }
}

await main();
