import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { rmSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { loadConfig } from '../src/lib/config.js';
import { createOrm, migrate } from '../src/db/orm.js';
import { startEmbeddedPostgres } from './stack/postgres.js';
import { spawnManaged, waitForPort, type ManagedProcess } from './stack/process.js';
import { startS3Gateway } from './stack/s3-gateway.js';
import { loadOrCreateLocalSecrets } from './stack/secrets.js';
import { startTemporalDevServer } from './stack/temporal.js';
import { createS3Client, ensureBucket } from '../src/storage/s3.js';
import { registerAnonymousAgent, uniqueWord as word } from './agent-client.js';
import { buildWorkflowBundle } from './build-workflows.js';

/**
 * `npm run test:faults`: the service under dependency faults, on a stack of its own (own ports and
 * data folder, so it never disturbs the test suite). One API and one worker as processes.
 * 1. PostgreSQL stopped and started under a write loop: 503 with Retry-After while it is down, never
 *    a 500, and writes succeed again without restarting anything.
 * 2. The worker SIGKILLed right after a burst of writes: every acknowledged write is searchable
 *    within 60 s of a new worker starting (activities heartbeat, so the dead worker's are retried).
 * 3. Temporal stopped for 10 s: writes still succeed, and all are searchable within 60 s of its return.
 * 4. No object without a version remains past the blob grace period.
 * Exit code 0 when every check holds.
 */
const base = Number(process.env.FAULTS_PORT_BASE ?? Number(process.env.TEST_PORT_BASE ?? 15400) + 60);
const dataDir = `.data/faults-${base}`;
const BOUND_S = 60;
const GRACE_S = 20;
const log = (m: string) => console.log(`[faults] ${m}`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const failures: string[] = [];
const check = (ok: boolean, what: string) => {
  log(`${ok ? 'ok  ' : 'FAIL'} ${what}`);
  if (!ok) failures.push(what);
};

const ports = {
  pg: base + 1,
  temporal: base + 2,
  ui: base + 3,
  s3: base + 4,
  http: base + 5,
  metrics: base + 6,
  api: base + 8,
};
const env: NodeJS.ProcessEnv = {
  ...process.env,
  NODE_ENV: 'test',
  LOG_LEVEL: 'warn',
  DATA_DIR: dataDir,
  PORT: String(ports.api),
  TEMPORAL_TASK_QUEUE: `faults-${base}`,
  CLEANUP_INTERVAL_S: '5',
  BLOB_GC_GRACE_S: String(GRACE_S),
  WRITE_BUDGET_PER_HOUR: '1000000',
  WRITE_BUDGET_PER_DRIVE_PER_HOUR: '1000000',
  REGISTRATIONS_PER_IP_PER_HOUR: '1000',
};
for (const v of ['DATABASE_URL', 'TEMPORAL_ADDRESS', 'TEMPORAL_UI_URL', 'S3_ENDPOINT', 'PUBLIC_BASE_URL'])
  delete env[v];
const apiUrl = `http://127.0.0.1:${ports.api}`;

interface Ack {
  artId: string;
  marker: string;
}

async function put(
  auth: Record<string, string>,
  p: string,
): Promise<{ status: number; retryAfter: string | null; ack?: Ack }> {
  const marker = word();
  try {
    const res = await fetch(`${apiUrl}/v0/artifacts/${p}`, {
      method: 'PUT',
      headers: { ...auth, 'content-type': 'text/markdown' },
      body: `note ${marker}\n`,
    });
    const body = (await res.json().catch(() => ({}))) as { art_id?: string };
    return {
      status: res.status,
      retryAfter: res.headers.get('retry-after'),
      ack: res.status === 200 ? { artId: body.art_id!, marker } : undefined,
    };
  } catch {
    return { status: 0, retryAfter: null };
  }
}

/** Seconds until every acknowledged write is found by /v0/search, or Infinity past the bound. */
async function secondsUntilSearchable(auth: Record<string, string>, acks: Ack[]): Promise<number> {
  const start = Date.now();
  let pending = [...acks];
  while (pending.length && Date.now() - start < BOUND_S * 1000) {
    const still: Ack[] = [];
    for (const a of pending) {
      const res = await fetch(`${apiUrl}/v0/search?q=${a.marker}`, { headers: auth }).catch(() => undefined);
      const hits =
        res?.status === 200 ? ((await res.json()) as { items: { art_id?: string; path: string }[] }).items : [];
      if (!hits.length) still.push(a);
    }
    pending = still;
    if (pending.length) await sleep(1000);
  }
  if (pending.length)
    log(
      `${pending.length} of ${acks.length} not searchable after ${BOUND_S} s: ${pending.map((a) => a.artId).join(', ')}`,
    );
  return pending.length ? Infinity : (Date.now() - start) / 1000;
}

async function main() {
  rmSync(dataDir, { recursive: true, force: true });
  const procs: ManagedProcess[] = [];
  const logDir = path.resolve(dataDir, 'logs');
  let stopPg: (() => Promise<void>) | undefined;
  try {
    await buildWorkflowBundle();
    Object.assign(env, loadOrCreateLocalSecrets(dataDir));
    const config = loadConfig(env);
    let postgres = await startEmbeddedPostgres({ dataDir, port: ports.pg, log });
    stopPg = postgres.stop;
    const temporalOpts = {
      dataDir,
      port: ports.temporal,
      uiPort: ports.ui,
      httpPort: ports.http,
      metricsPort: ports.metrics,
      namespace: config.temporal.namespace,
      log,
    };
    let temporal = await startTemporalDevServer(temporalOpts);
    const s3 = await startS3Gateway({ dataDir, port: ports.s3, ...config.s3, log });
    procs.push(temporal.process, s3.process);
    Object.assign(env, { DATABASE_URL: postgres.url, TEMPORAL_ADDRESS: temporal.address, S3_ENDPOINT: s3.endpoint });
    const s3Client = createS3Client({ ...config.s3, endpoint: s3.endpoint });
    await ensureBucket(s3Client, config.s3.bucket);
    const orm = await createOrm(postgres.url, { poolMax: 2 });
    await migrate(orm);
    await orm.close();
    const node = (name: string, script: string) => {
      const p = spawnManaged(name, process.execPath, ['--import', 'tsx', path.resolve('src', script)], { logDir, env });
      procs.push(p);
      return p;
    };
    let worker = node('worker', 'worker.ts');
    const api = node('api', 'main.ts');
    await waitForPort(ports.api, api);
    const auth: Record<string, string> = await registerAnonymousAgent(apiUrl);
    const first = await put(auth, 'faults/first.md');
    if (first.status !== 200) throw new Error(`the first write answered ${first.status}: the stack is not working`);

    // 1. PostgreSQL down under a write loop.
    const statuses: Record<number, number> = {};
    const acks: Ack[] = [];
    let noRetryAfter = 0;
    let writing = true;
    let n = 0;
    const loop = (async () => {
      while (writing) {
        const r = await put(auth, `faults/pg/${n++}.md`);
        statuses[r.status] = (statuses[r.status] ?? 0) + 1;
        if (r.status === 503 && !r.retryAfter) noRetryAfter++;
        if (r.ack) acks.push(r.ack);
        await sleep(50);
      }
    })();
    await sleep(3000);
    log('stopping PostgreSQL');
    await postgres.stop();
    await sleep(6000);
    log('starting PostgreSQL again');
    postgres = await startEmbeddedPostgres({ dataDir, port: ports.pg, log });
    stopPg = postgres.stop;
    await sleep(1000);
    const afterRestart = acks.length;
    await sleep(5000);
    writing = false;
    await loop;
    log(`PostgreSQL outage: statuses ${JSON.stringify(statuses)}`);
    check(!statuses[500], 'no 500 while PostgreSQL was down');
    check((statuses[503] ?? 0) > 0 && noRetryAfter === 0, '503 with Retry-After while PostgreSQL was down');
    check(acks.length > afterRestart, 'writes succeed again after PostgreSQL returns, without a restart');

    // 2. Worker SIGKILLed right after a burst.
    const burst: Ack[] = [];
    for (let i = 0; i < 20; i++) {
      const r = await put(auth, `faults/worker/${i}.md`);
      if (r.ack) burst.push(r.ack);
    }
    log(`SIGKILL worker (pid ${worker.child.pid}) after ${burst.length} writes`);
    worker.child.kill('SIGKILL');
    await worker.exited;
    await sleep(2000);
    worker = node('worker-2', 'worker.ts');
    const workerSeconds = await secondsUntilSearchable(auth, [...burst, ...acks]);
    log(`after the new worker: searchable in ${workerSeconds.toFixed(1)} s`);
    check(workerSeconds <= BOUND_S, `every acknowledged write searchable within ${BOUND_S} s of a new worker`);

    // 3. Temporal stopped for 10 s.
    log('stopping Temporal for 10 s');
    await temporal.process.stop();
    const during: Ack[] = [];
    const outageStart = Date.now();
    let refused = 0;
    for (let i = 0; Date.now() - outageStart < 10_000; i++) {
      const r = await put(auth, `faults/temporal/${i}.md`);
      if (r.ack) during.push(r.ack);
      else refused++;
      await sleep(500);
    }
    temporal = await startTemporalDevServer(temporalOpts);
    procs.push(temporal.process);
    log(`Temporal back; ${during.length} writes acknowledged while it was down (${refused} refused)`);
    check(during.length > 0 && refused === 0, 'writes succeed while Temporal is down');
    const temporalSeconds = await secondsUntilSearchable(auth, during);
    log(`writes made during the outage searchable ${temporalSeconds.toFixed(1)} s after Temporal returned`);
    check(
      temporalSeconds <= BOUND_S,
      `every write made while Temporal was down searchable within ${BOUND_S} s of its return`,
    );

    // 4. No bytes without a version past the grace period (the cleanup schedule runs every 5 s).
    await sleep((GRACE_S + 10) * 1000);
    const db = new pg.Client({ connectionString: postgres.url });
    await db.connect();
    const referenced = new Set(
      (await db.query<{ hash: string }>('select distinct hash from artifact_versions')).rows.map((r) => r.hash),
    );
    await db.end();
    const objects = await s3Client.send(new ListObjectsV2Command({ Bucket: config.s3.bucket, Prefix: 'blobs/' }));
    const orphans = (objects.Contents ?? []).filter((o) => !referenced.has(o.Key!.slice(o.Key!.lastIndexOf('/') + 1)));
    check(
      orphans.length === 0,
      `no object without a version past the ${GRACE_S} s grace period (${orphans.length} found of ${objects.KeyCount ?? 0})`,
    );
    s3Client.destroy();
  } finally {
    for (const p of procs.reverse()) await p.stop();
    await stopPg?.().catch(() => undefined);
  }
}

const started = Date.now();
await main().catch((err) => failures.push(`crashed: ${(err as Error).stack ?? String(err)}`));
log(
  `${failures.length ? 'FAIL' : 'PASS'} in ${((Date.now() - started) / 1000).toFixed(0)} s${failures.length ? `: ${failures.join('; ')}` : ''}`,
);
if (!failures.length) rmSync(dataDir, { recursive: true, force: true });
process.exit(failures.length ? 1 : 0);
