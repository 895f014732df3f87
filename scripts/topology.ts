import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { loadConfig } from '../src/config.js';
import { createOrm, migrate } from '../src/db/orm.js';
import { startStack, type Stack } from '../src/stack/index.js';
import { createTemporalClient } from '../src/temporal/client.js';
import { spawnManaged, waitForPort, type ManagedProcess } from '../src/stack/process.js';
import { expectJson as json, registerAnonymousAgent, uniqueWord as word } from './agent-client.js';
import { buildWorkflowBundle } from './build-workflows.js';

/**
 * `npm run test:topology`: the scale-out shape without Docker. One set of dependencies, two API
 * processes and two workers as separate processes against it; writes go through both APIs
 * (anonymous agents, one registered on each API); mid-run one API and one worker are SIGKILLed
 * and the writers fail over to the survivor. Passes when every acknowledged write reads back
 * byte for byte through the surviving API and is found by /v0/search. Exit code 0 or 1.
 */
const base = Number(process.env.TOPOLOGY_PORT_BASE ?? Number(process.env.TEST_PORT_BASE ?? 15400) + 40);
const dataDir = `.data/topology-${base}`;
const WRITERS = Number(process.env.TOPOLOGY_WRITERS ?? 2);
const WRITE_SECONDS = Number(process.env.TOPOLOGY_WRITE_SECONDS ?? 10);
/** Between one writer's requests: the point is failover, not throughput; indexing must keep up on a loaded 2-core machine. */
const PAUSE_MS = Number(process.env.TOPOLOGY_PAUSE_MS ?? 300);
const KILL_AFTER_S = WRITE_SECONDS / 2;
/** At most this long for indexing after the last write (a killed worker's drain is retried within seconds). */
const CHECK_CAP_S = Number(process.env.TOPOLOGY_CHECK_SECONDS ?? 150);
const PUBLIC_URL = 'http://drive.topology.test';
const log = (m: string) => console.log(`[topology] ${m}`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Api {
  name: string;
  url: string;
  proc: ManagedProcess;
  dead: boolean;
}
interface Agent {
  headers: Record<string, string>;
}
interface Ack {
  path: string;
  body: string;
  marker: string;
  artId: string;
  agent: Agent;
  via: string;
}

/** On a failure: what PostgreSQL is busy with or waiting for (a stuck step is often a lock). */
async function dumpDatabaseActivity(url: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query(
      `select pid, state, wait_event_type, wait_event, round(extract(epoch from now() - xact_start)) as xact_s, left(query, 160) as query
         from pg_stat_activity where datname = current_database() and state <> 'idle' and pid <> pg_backend_pid()`,
    );
    for (const r of rows) log(`pg ${r.pid} ${r.state} wait=${r.wait_event_type ?? '-'}/${r.wait_event ?? '-'} xact ${r.xact_s ?? '-'} s: ${r.query}`);
    if (!rows.length) log('pg: no busy connection');
  } finally {
    await client.end();
  }
}

async function waitForLog(proc: ManagedProcess, pattern: RegExp, timeoutMs = 180_000) {
  const end = Date.now() + timeoutMs;
  while (!pattern.test(existsSync(proc.logFile!) ? readFileSync(proc.logFile!, 'utf8') : '')) {
    if (proc.child.exitCode !== null) throw new Error(`${proc.name} exited with code ${proc.child.exitCode}; its log: ${proc.logFile}`);
    if (Date.now() > end) throw new Error(`${proc.name} did not start polling within ${timeoutMs / 1000} s; its log: ${proc.logFile}`);
    await sleep(250);
  }
}

/**
 * Why writes are not indexed yet, for the failure report: each one's waiting outbox requests
 * (attempts, last error) and what the drainer workflows are running. Any write not indexed at the
 * bound fails the run, whatever the reason.
 */
async function explain(pending: Ack[], config: ReturnType<typeof loadConfig>) {
  const db = new pg.Client({ connectionString: config.database.url });
  await db.connect();
  const temporal = await createTemporalClient(config.temporal);
  try {
    const { rows } = await db.query<{ art_id: string; op: string; attempts: number; last_error: string | null }>(
      `select art_id, op, attempts, last_error from outbox where topic = 'search' and art_id = any($1::text[]) order by id`,
      [pending.map((a) => a.artId)],
    );
    for (const a of pending) {
      const waiting = rows.filter((r) => r.art_id === a.artId).map((r) => `${r.op} (attempts ${r.attempts}${r.last_error ? `, ${r.last_error}` : ''})`);
      log(`not indexed yet: ${a.path} (${a.artId}, via ${a.via}): outbox ${waiting.join(', ') || 'empty'}`);
    }
    for (let shard = 0; shard < config.outbox.shards; shard++) {
      const d = await temporal.workflow.getHandle(`outbox-search-${shard}`).describe().catch((e: Error) => e);
      const acts = d instanceof Error ? [] : (d.raw.pendingActivities ?? []);
      log(`drainer outbox-search-${shard}: ${d instanceof Error ? d.message : d.status.name}; ${acts.map((p) => `attempt ${p.attempt} on ${p.lastWorkerIdentity}, ${p.lastFailure?.message ?? 'no failure'}`).join('; ') || 'no activity'}`);
    }
  } finally {
    await db.end();
    await temporal.connection.close();
  }
}

async function main(): Promise<boolean> {
  const started = Date.now();
  rmSync(dataDir, { recursive: true, force: true });
  const ports = { pg: base + 1, temporal: base + 2, ui: base + 3, s3: base + 4, http: base + 5, metrics: base + 6, apiA: base + 8, apiB: base + 10 }; // each API also listens on its port + 1 (the content origin)
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'test',
    LOG_LEVEL: 'warn',
    DATA_DIR: dataDir,
    EMBEDDED_PG_PORT: String(ports.pg),
    TEMPORAL_PORT: String(ports.temporal),
    TEMPORAL_UI_PORT: String(ports.ui),
    S3_PORT: String(ports.s3),
    TEMPORAL_HTTP_PORT: String(ports.http),
    TEMPORAL_METRICS_PORT: String(ports.metrics),
    TEMPORAL_TASK_QUEUE: `topology-${base}`,
    CLEANUP_INTERVAL_S: '5',
    WRITE_BUDGET_PER_HOUR: '1000000',
    REGISTRATIONS_PER_IP_PER_HOUR: '1000',
  };
  for (const v of ['DATABASE_URL', 'TEMPORAL_ADDRESS', 'TEMPORAL_UI_URL', 'S3_ENDPOINT', 'PUBLIC_BASE_URL', 'PORT']) delete env[v];

  const procs: ManagedProcess[] = [];
  let stack: Stack | undefined;
  try {
    await buildWorkflowBundle();
    stack = await startStack(loadConfig(env), log);
    Object.assign(env, stack.env);
    const orm = await createOrm(env.DATABASE_URL!, { poolMax: 2 });
    await migrate(orm);
    await orm.close();
    log(`dependencies up in ${((Date.now() - started) / 1000).toFixed(1)} s; starting 2 workers and 2 APIs`);

    const logDir = path.resolve(dataDir, 'logs');
    const spawnNode = (name: string, script: string, extra: NodeJS.ProcessEnv = {}) => {
      const p = spawnManaged(name, process.execPath, ['--import', 'tsx', path.resolve('src', script)], { logDir, env: { ...env, ...extra } });
      procs.push(p);
      return p;
    };
    const workers = [spawnNode('worker-a', 'worker.ts'), spawnNode('worker-b', 'worker.ts')];
    const apis: Api[] = (['a', 'b'] as const).map((n) => {
      const port = n === 'a' ? ports.apiA : ports.apiB;
      const url = `http://127.0.0.1:${port}`;
      // One public origin for both, as behind a load balancer: it is the tokens' issuer and audience.
      return { name: `api-${n}`, url, dead: false, proc: spawnNode(`api-${n}`, 'main.ts', { PORT: String(port), PUBLIC_BASE_URL: PUBLIC_URL }) };
    });
    for (const a of apis) await waitForPort(Number(new URL(a.url).port), a.proc, { log });
    // Killing a worker that never polled would prove nothing: wait until both say RUNNING.
    for (const w of workers) await waitForLog(w, /state: 'RUNNING'/);
    const agents = await Promise.all(apis.map(async (a): Promise<Agent> => ({ headers: await registerAnonymousAgent(a.url) })));
    log(`APIs ready; agents registered on ${apis.map((a) => a.name).join(' and ')}; writing for ${WRITE_SECONDS} s with ${WRITERS} writers`);

    const acks: Ack[] = [];
    let failed = 0;
    const byApi: Record<string, number> = {};
    const writeStart = Date.now();
    const writer = async (w: number) => {
      for (let i = 0; Date.now() - writeStart < WRITE_SECONDS * 1000; i++) {
        const agent = agents[(w + i) % agents.length];
        const live = apis.filter((a) => !a.dead);
        // Round robin, crossing agents and APIs (a token from one API is used on the other); the
        // load balancer drops the dead API.
        const api = live[(w + (i >> 1)) % live.length];
        const marker = word();
        const p = `topology/w${w}/${i}.md`;
        const body = `# write ${w}.${i}\n\nThis note carries the marker ${marker}.\n`;
        try {
          const res = await fetch(`${api.url}/v0/artifacts/${p}`, { method: 'PUT', headers: { ...agent.headers, 'content-type': 'text/markdown' }, body });
          if (res.status !== 200 && res.status !== 201) throw new Error(`PUT ${p} via ${api.name}: ${res.status} ${await res.text()}`);
          const { art_id: artId } = (await res.json()) as { art_id: string };
          acks.push({ path: p, body, marker, artId, agent, via: api.name });
          byApi[api.name] = (byApi[api.name] ?? 0) + 1;
        } catch (err) {
          // Not acknowledged: the client saw no 2xx, so the write may or may not exist. Only an
          // API we killed may fail a request.
          if (!api.dead) throw err;
          failed++;
        }
        await sleep(PAUSE_MS);
      }
    };
    const killer = (async () => {
      await sleep(KILL_AFTER_S * 1000);
      const [api, worker] = [apis[1], workers[0]];
      log(`SIGKILL ${api.name} (pid ${api.proc.child.pid}) and ${worker.name} (pid ${worker.child.pid}) after ${acks.length} acknowledged writes; ${workers[1].name} (pid ${workers[1].child.pid}) survives`);
      api.dead = true;
      process.kill(-api.proc.child.pid!, 'SIGKILL');
      process.kill(-worker.child.pid!, 'SIGKILL');
    })();
    await Promise.all([...Array.from({ length: WRITERS }, (_, w) => writer(w)), killer]);
    const writeSeconds = (Date.now() - writeStart) / 1000;
    log(`${acks.length} writes acknowledged (${Object.entries(byApi).map(([k, v]) => `${k} ${v}`).join(', ')}), ${failed} failed on the killed API, in ${writeSeconds.toFixed(1)} s`);

    // Every acknowledged write, through the survivor: the bytes, then the search hit.
    const survivor = apis[0];
    let readOk = 0;
    for (const a of acks) {
      const res = await fetch(`${survivor.url}/v0/artifacts/${a.artId}/download`, { headers: a.agent.headers });
      const text = await res.text();
      if (res.status === 200 && text === a.body) readOk++;
      else if (acks.length - readOk <= 10) log(`READ MISMATCH ${a.path} (via ${a.via}): ${res.status} ${text.slice(0, 200)}`);
    }
    log(`${readOk}/${acks.length} read back byte for byte through ${survivor.name}`);

    // Polls search until every write is found, up to CHECK_CAP_S: each write queued its indexing in
    // its own transaction, so a killed API or worker delays it and never loses it.
    const checkStart = Date.now();
    const config = loadConfig(env);
    let pending = [...acks];
    while (pending.length && Date.now() - checkStart < CHECK_CAP_S * 1000) {
      const still: Ack[] = [];
      for (const a of pending) {
        const res = await fetch(`${survivor.url}/v0/search?q=${a.marker}`, { headers: a.agent.headers });
        const hits = (await json<{ items: { art_id: string }[] }>(res, 'GET /v0/search')).items;
        if (!hits.some((h) => h.art_id === a.artId)) still.push(a);
      }
      if (still.length !== pending.length) log(`${acks.length - still.length}/${acks.length} indexed after ${((Date.now() - checkStart) / 1000).toFixed(0)} s`);
      pending = still;
      if (pending.length) await sleep(1000);
    }
    const indexSeconds = (Date.now() - checkStart) / 1000;
    log(`${acks.length - pending.length}/${acks.length} found by /v0/search through ${survivor.name} (${indexSeconds.toFixed(1)} s after the last write)`);
    if (pending.length) {
      await explain(pending, config);
      await dumpDatabaseActivity(env.DATABASE_URL!);
    }

    const ok = acks.length > 0 && readOk === acks.length && pending.length === 0 && byApi['api-a'] > 0 && byApi['api-b'] > 0;
    log(`${ok ? 'PASS' : 'FAIL'} in ${((Date.now() - started) / 1000).toFixed(1)} s (logs: ${logDir})`);
    return ok;
  } finally {
    for (const p of procs.reverse()) await p.stop();
    await stack?.stop();
  }
}

const ok = await main().catch((err) => {
  console.error(`[topology] FAIL: ${(err as Error).stack ?? String(err)}`);
  return false;
});
if (ok) rmSync(dataDir, { recursive: true, force: true });
process.exit(ok ? 0 : 1);
