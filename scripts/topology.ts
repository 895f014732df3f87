import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { loadConfig } from '../src/lib/config.js';
import { createOrm, migrate } from '../src/db/orm.js';
import { startStack, type Stack } from './stack/index.js';
import { createTemporalClient } from '../src/temporal/client.js';
import { spawnManaged, waitForPort, type ManagedProcess } from './stack/process.js';
import {
  startEmbeddingsServer,
  type EmbeddingsTestServer,
  type HeldRequest,
} from '../test/helpers/embeddings-server.js';
import { expectJson as json, registerAnonymousAgent, uniqueWord as word } from './agent-client.js';
import { buildWorkflowBundle } from './build-workflows.js';

/**
 * `npm run test:topology`: the scale-out shape without Docker, and the acceptance test of the
 * indexing outbox (issue 19). One set of dependencies and an embeddings server on 127.0.0.1 (each
 * worker with its own API key, so the server knows who sent a request), two API processes and two
 * workers as separate processes against it; writes go through both APIs (anonymous agents, one
 * registered on each API). Mid-run, at one moment:
 * - a burst of concurrent PUTs goes to one API, which is SIGKILLed as soon as the first of them is
 *   committed, so some writes are committed and never acknowledged;
 * - the next embeddings request a worker sends is held unanswered, and that worker is SIGKILLed
 *   while it is in flight (mid-batch); the other worker must take its shards over.
 * The writers fail over to the surviving API. Passes when every acknowledged write reads back byte
 * for byte through the surviving API and is found by /v0/search, every artifact of the test's
 * drives (acknowledged or not) is indexed and embedded (`indexed_at`, `embedded_at`), and no text
 * was embedded twice among the embeddings responses actually delivered to the workers (each
 * write is one passage with a unique marker: each marker exactly once). Exit code 0 or 1.
 */
const base = Number(process.env.TOPOLOGY_PORT_BASE ?? Number(process.env.TEST_PORT_BASE ?? 15400) + 40);
const dataDir = `.data/topology-${base}`;
const WRITERS = Number(process.env.TOPOLOGY_WRITERS ?? 2);
const WRITE_SECONDS = Number(process.env.TOPOLOGY_WRITE_SECONDS ?? 10);
/** Before the worker kill: time for answers already delivered to it to reach the embedding cache. */
const PERSIST_GRACE_MS = 500;
/**
 * Between one writer's requests: the point is failover, not throughput; indexing must keep up on a loaded 2-core
 * machine.
 */
const PAUSE_MS = Number(process.env.TOPOLOGY_PAUSE_MS ?? 300);
const KILL_AFTER_S = WRITE_SECONDS / 2;
/**
 * At most this long for indexing after the last write (a killed worker's drain is retried on the other after its 10 s
 * heartbeat timeout).
 */
const CHECK_CAP_S = Number(process.env.TOPOLOGY_CHECK_SECONDS ?? 60);
/** Concurrent PUTs sent to the API that is killed. */
const BURST = Number(process.env.TOPOLOGY_BURST ?? 20);
const EMBEDDINGS_API_KEY = 'topology-api';
/** Also fail when the API kill left no committed write unacknowledged (a missed window, rare; a warning otherwise). */
const STRICT = process.env.TOPOLOGY_STRICT === '1';
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
  driveId: string;
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
    for (const r of rows)
      log(
        `pg ${r.pid} ${r.state} wait=${r.wait_event_type ?? '-'}/${r.wait_event ?? '-'} xact ${r.xact_s ?? '-'} s: ${r.query}`,
      );
    if (!rows.length) log('pg: no busy connection');
  } finally {
    await client.end();
  }
}

async function waitForLog(proc: ManagedProcess, pattern: RegExp, timeoutMs = 180_000) {
  const end = Date.now() + timeoutMs;
  while (!pattern.test(existsSync(proc.logFile!) ? readFileSync(proc.logFile!, 'utf8') : '')) {
    if (proc.child.exitCode !== null)
      throw new Error(`${proc.name} exited with code ${proc.child.exitCode}; its log: ${proc.logFile}`);
    if (Date.now() > end)
      throw new Error(`${proc.name} did not start polling within ${timeoutMs / 1000} s; its log: ${proc.logFile}`);
    await sleep(250);
  }
}

/** A write the report can name: acknowledged, or found in the database without an acknowledgement. */
interface Pending {
  artId: string;
  path: string;
  via: string;
}

/**
 * Why writes are not indexed yet, for the failure report: each one's indexing state on the record,
 * its waiting outbox requests (attempts, last error), what the drainer workflows are running and
 * what the embeddings server saw. Any write not indexed at the bound fails the run, whatever the reason.
 */
async function explain(pending: Pending[], config: ReturnType<typeof loadConfig>, embeddings: EmbeddingsTestServer) {
  const db = new pg.Client({ connectionString: config.database.url });
  await db.connect();
  const temporal = await createTemporalClient(config.temporal);
  try {
    const ids = pending.map((a) => a.artId);
    const { rows } = await db.query<{
      art_id: string;
      op: string;
      attempts: number;
      last_error: string | null;
      not_before_s: number;
    }>(
      `select art_id, op, attempts, last_error, round(extract(epoch from not_before - now()))::int as not_before_s
         from outbox where topic = 'search' and art_id = any($1::text[]) order by id`,
      [ids],
    );
    const records = new Map(
      (
        await db.query<{ id: string; indexed_at: Date | null; embedded_at: Date | null }>(
          'select id, indexed_at, embedded_at from artifacts where id = any($1::text[])',
          [ids],
        )
      ).rows.map((r) => [r.id, r]),
    );
    for (const a of pending.slice(0, 30)) {
      const waiting = rows
        .filter((r) => r.art_id === a.artId)
        .map(
          (r) =>
            `${r.op} (attempts ${r.attempts}${r.attempts ? `, due in ${r.not_before_s} s` : ''}${r.last_error ? `, ${r.last_error}` : ''})`,
        );
      const rec = records.get(a.artId);
      const state = rec
        ? `indexed_at ${rec.indexed_at?.toISOString() ?? 'null'}, embedded_at ${rec.embedded_at?.toISOString() ?? 'null'}`
        : 'no record';
      log(`not indexed yet: ${a.path} (${a.artId}, via ${a.via}): ${state}; outbox ${waiting.join(', ') || 'empty'}`);
    }
    if (pending.length > 30) log(`… and ${pending.length - 30} more`);
    const { rows: depth } = await db.query<{ n: number; retrying: number }>(
      `select count(*)::int as n, count(*) filter (where attempts > 0)::int as retrying from outbox where topic = 'search'`,
    );
    log(`outbox (search): ${depth[0]?.n ?? 0} requests waiting, ${depth[0]?.retrying ?? 0} retrying`);
    for (let shard = 0; shard < config.outbox.shards; shard++) {
      const d = await temporal.workflow
        .getHandle(`outbox-search-${shard}`)
        .describe()
        .catch((e: Error) => e);
      const acts = d instanceof Error ? [] : (d.raw.pendingActivities ?? []);
      log(
        `drainer outbox-search-${shard}: ${d instanceof Error ? d.message : d.status.name}; ${acts.map((p) => `attempt ${p.attempt} on ${p.lastWorkerIdentity}, ${p.lastFailure?.message ?? 'no failure'}`).join('; ') || 'no activity'}`,
      );
    }
    const byKey = new Map<string, number>();
    for (const r of embeddings.delivered) byKey.set(r.apiKey, (byKey.get(r.apiKey) ?? 0) + 1);
    log(
      `embeddings server: ${embeddings.requests} requests received; delivered ${[...byKey].map(([k, n]) => `${n} to ${k}`).join(', ') || 'none'}`,
    );
  } finally {
    await db.end();
    await temporal.connection.close();
  }
}

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    p,
    new Promise<never>(
      (_, reject) => (timer = setTimeout(() => reject(new Error(`${what} within ${ms / 1000} s`)), ms)),
    ).finally(() => clearTimeout(timer)),
  ]);
}

async function main(): Promise<boolean> {
  const started = Date.now();
  rmSync(dataDir, { recursive: true, force: true });
  const ports = {
    pg: base + 1,
    temporal: base + 2,
    ui: base + 3,
    s3: base + 4,
    http: base + 5,
    metrics: base + 6,
    apiA: base + 8,
    apiB: base + 10,
  }; // each API also listens on its port + 1 (the content origin)
  const workerNames = ['worker-a', 'worker-b'];
  const workerKey = (name: string) => `topology-${name}`;
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
    EMBEDDINGS_MODEL: 'topology-embeddings',
    EMBEDDINGS_DIMENSIONS: '64',
  };
  for (const v of [
    'DATABASE_URL',
    'TEMPORAL_ADDRESS',
    'TEMPORAL_UI_URL',
    'S3_ENDPOINT',
    'PUBLIC_BASE_URL',
    'PORT',
    'EMBEDDINGS_URL',
    'EMBEDDINGS_API_KEY',
    'TYPESENSE_URL',
  ])
    delete env[v];

  const procs: ManagedProcess[] = [];
  let stack: Stack | undefined;
  let dbClient: pg.Client | undefined;
  const embeddings = await startEmbeddingsServer({ apiKeys: [EMBEDDINGS_API_KEY, ...workerNames.map(workerKey)] });
  env.EMBEDDINGS_URL = embeddings.url;
  try {
    await buildWorkflowBundle();
    stack = await startStack(loadConfig(env), log, { mailCatcher: false });
    Object.assign(env, stack.env);
    const orm = await createOrm(env.DATABASE_URL!, { poolMax: 2 });
    await migrate(orm);
    await orm.close();
    log(
      `dependencies up in ${((Date.now() - started) / 1000).toFixed(1)} s; embeddings at ${embeddings.url}; starting 2 workers and 2 APIs`,
    );

    const logDir = path.resolve(dataDir, 'logs');
    const spawnNode = (name: string, script: string, extra: NodeJS.ProcessEnv = {}) => {
      const p = spawnManaged(name, process.execPath, ['--import', 'tsx', path.resolve('src', script)], {
        logDir,
        env: { ...env, ...extra },
      });
      procs.push(p);
      return p;
    };
    // Each worker its own embeddings key: the server tells who sent a request.
    const workers = workerNames.map((name) => ({
      name,
      key: workerKey(name),
      proc: spawnNode(name, 'worker.ts', { EMBEDDINGS_API_KEY: workerKey(name) }),
    }));
    const apis: Api[] = (['a', 'b'] as const).map((n) => {
      const port = n === 'a' ? ports.apiA : ports.apiB;
      const url = `http://127.0.0.1:${port}`;
      // One public origin for both, as behind a load balancer: it is the tokens' issuer and audience.
      return {
        name: `api-${n}`,
        url,
        dead: false,
        proc: spawnNode(`api-${n}`, 'main.ts', { PORT: String(port), PUBLIC_BASE_URL: PUBLIC_URL, EMBEDDINGS_API_KEY }),
      };
    });
    for (const a of apis) await waitForPort(Number(new URL(a.url).port), a.proc, { log });
    // Killing a worker that never polled would prove nothing: wait until both say RUNNING.
    for (const w of workers) await waitForLog(w.proc, /state: 'RUNNING'/);
    const agents = await Promise.all(
      apis.map(async (a): Promise<Agent> => {
        const headers = await registerAnonymousAgent(a.url);
        const { drive_id: driveId } = await json<{ drive_id: string }>(
          await fetch(`${a.url}/v0/drives/me`, { headers }),
          'GET /v0/drives/me',
        );
        return { headers, driveId };
      }),
    );
    const driveIds = agents.map((a) => a.driveId);
    const db = (dbClient = new pg.Client({ connectionString: env.DATABASE_URL }));
    await db.connect();
    log(
      `APIs ready; agents registered on ${apis.map((a) => a.name).join(' and ')}; writing for ${WRITE_SECONDS} s with ${WRITERS} writers`,
    );

    const acks: Ack[] = [];
    /**
     * Every write attempted, acknowledged or not: its path → its marker (one passage each, so one embedded text each).
     */
    const markers = new Map<string, string>();
    let failed = 0;
    const byApi: Record<string, number> = {};
    const writeStart = Date.now();
    const put = async (api: Api, agent: Agent, p: string, label: string): Promise<Ack> => {
      const marker = word();
      markers.set(p, marker);
      const body = `# ${label}\n\nThis note carries the marker ${marker}.\n`;
      const res = await fetch(`${api.url}/v0/artifacts/${p}`, {
        method: 'PUT',
        headers: { ...agent.headers, 'content-type': 'text/markdown' },
        body,
      });
      if (res.status !== 200 && res.status !== 201)
        throw new Error(`PUT ${p} via ${api.name}: ${res.status} ${await res.text()}`);
      const { art_id: artId } = (await res.json()) as { art_id: string };
      const ack = { path: p, body, marker, artId, agent, via: api.name };
      acks.push(ack);
      byApi[api.name] = (byApi[api.name] ?? 0) + 1;
      return ack;
    };
    const writer = async (w: number) => {
      for (let i = 0; Date.now() - writeStart < WRITE_SECONDS * 1000; i++) {
        const agent = agents[(w + i) % agents.length];
        const live = apis.filter((a) => !a.dead);
        // Round robin, crossing agents and APIs (a token from one API is used on the other); the
        // load balancer drops the dead API.
        const api = live[(w + (i >> 1)) % live.length];
        try {
          await put(api, agent, `topology/w${w}/${i}.md`, `write ${w}.${i}`);
        } catch (err) {
          // Not acknowledged: the client saw no 2xx, so the write may or may not exist. Only an
          // API we killed may fail a request.
          if (!api.dead) throw err;
          failed++;
        }
        await sleep(PAUSE_MS);
      }
    };
    let victimWorker: (typeof workers)[number] | undefined;
    let burstAcked = 0;
    const killer = (async () => {
      await sleep(KILL_AFTER_S * 1000);
      const api = apis[1];
      // From now on the next embeddings request from a worker is held unanswered (and any later one from the same
      // worker).
      const held = embeddings.hold((key) => workers.some((w) => w.key === key));
      // The load balancer stops sending to the API we are about to kill; the burst goes to it directly.
      api.dead = true;
      const burst = Array.from({ length: BURST }, (_, i) =>
        put(api, agents[i % agents.length], `topology/burst/${i}.md`, `burst ${i}`).then(
          () => burstAcked++,
          () => failed++,
        ),
      );
      // Kill it right after a commit: as soon as PostgreSQL shows more burst writes than have been answered.
      const sent = Date.now();
      let committed = 0;
      while (Date.now() - sent < 10_000) {
        const { rows } = await db.query<{ n: number }>(
          `select count(*)::int as n from artifacts where drive_id = any($1::text[]) and path like 'topology/burst/%'`,
          [driveIds],
        );
        if ((committed = rows[0]!.n) > burstAcked) break;
      }
      process.kill(-api.proc.child.pid!, 'SIGKILL');
      log(
        `SIGKILL ${api.name} (pid ${api.proc.child.pid}) ${Date.now() - sent} ms after a burst of ${BURST} PUTs, when ${committed} were committed and ${burstAcked} answered`,
      );
      await Promise.all(burst);

      let inFlight: HeldRequest;
      try {
        inFlight = await withTimeout(held, 60_000, 'no worker sent an embeddings request');
      } catch (err) {
        void held.then((h) => h.drop());
        throw err;
      }
      const victim = workers.find((w) => w.key === inFlight.apiKey)!;
      victimWorker = victim;
      // An answer that reached the worker is stored within milliseconds (the embedding cache); one
      // that arrives and dies with the process cannot be saved by anyone. So the worker gets a moment
      // to store what it already received (its other shard may just have had an answer delivered),
      // while everything it asks from now on stays held: it dies mid-batch, with a request unanswered.
      await sleep(PERSIST_GRACE_MS);
      process.kill(-victim.proc.child.pid!, 'SIGKILL');
      inFlight.drop();
      const survivor = workers.find((w) => w !== victim)!;
      log(
        `SIGKILL ${victim.name} (pid ${victim.proc.child.pid}) with an embeddings request of ${inFlight.texts.length} texts in flight, after ${acks.length} acknowledged writes; ${survivor.name} (pid ${survivor.proc.child.pid}) survives`,
      );
    })();
    await Promise.all([...Array.from({ length: WRITERS }, (_, w) => writer(w)), killer]);
    const lastWrite = Date.now();
    const writeSeconds = (lastWrite - writeStart) / 1000;
    log(
      `${acks.length} writes acknowledged (${Object.entries(byApi)
        .map(([k, v]) => `${k} ${v}`)
        .join(
          ', ',
        )}; ${burstAcked}/${BURST} of the burst), ${failed} failed on the killed API, in ${writeSeconds.toFixed(1)} s`,
    );

    // Committed but never acknowledged: in the test's drives, not among the acknowledged.
    const ackedIds = new Set(acks.map((a) => a.artId));
    const listArtifacts = async () =>
      (
        await db.query<{ id: string; path: string; indexed: boolean; embedded: boolean }>(
          `select id, path, indexed_at is not null as indexed, embedded_at is not null as embedded from artifacts where drive_id = any($1::text[]) and deleted_at is null`,
          [driveIds],
        )
      ).rows;
    const unacked = (await listArtifacts()).filter((r) => !ackedIds.has(r.id));
    log(
      `${unacked.length} writes committed but never acknowledged (${unacked.map((r) => r.path).join(', ') || 'none'})`,
    );
    // The kill is aimed between a commit and its answer, but an answer already in the socket still arrives.
    if (!unacked.length)
      log(
        `WARNING: no write was committed and left unacknowledged by the API kill: this run did not exercise that case${STRICT ? ' (TOPOLOGY_STRICT: fail)' : ''}`,
      );

    // Every acknowledged write, through the survivor: the bytes, then the search hit.
    const survivor = apis[0];
    let readOk = 0;
    for (const a of acks) {
      const res = await fetch(`${survivor.url}/v0/artifacts/${a.artId}/download`, { headers: a.agent.headers });
      const text = await res.text();
      if (res.status === 200 && text === a.body) readOk++;
      else if (acks.length - readOk <= 10)
        log(`READ MISMATCH ${a.path} (via ${a.via}): ${res.status} ${text.slice(0, 200)}`);
    }
    log(`${readOk}/${acks.length} read back byte for byte through ${survivor.name}`);

    // Polls until every acknowledged write is found by search and every artifact of the drives
    // (acknowledged or not) is indexed and embedded, up to CHECK_CAP_S: each write queued its
    // indexing in its own transaction, so a killed API or worker delays it and never loses it.
    const config = loadConfig(env);
    let pending = [...acks];
    let notIndexed = await listArtifacts();
    let allIndexedAt: number | undefined;
    for (;;) {
      const still: Ack[] = [];
      for (const a of pending) {
        const res = await fetch(`${survivor.url}/v0/search?q=${a.marker}`, { headers: a.agent.headers });
        const hits = (await json<{ items: { art_id: string }[] }>(res, 'GET /v0/search')).items;
        if (!hits.some((h) => h.art_id === a.artId)) still.push(a);
      }
      const rows = await listArtifacts();
      const waiting = rows.filter((r) => !r.indexed || !r.embedded);
      if (still.length !== pending.length || waiting.length !== notIndexed.length) {
        log(
          `${acks.length - still.length}/${acks.length} found, ${rows.length - waiting.length}/${rows.length} indexed and embedded, ${((Date.now() - lastWrite) / 1000).toFixed(0)} s after the last write`,
        );
      }
      pending = still;
      notIndexed = waiting;
      if (!pending.length && !notIndexed.length) {
        allIndexedAt = Date.now();
        break;
      }
      if (Date.now() - lastWrite > CHECK_CAP_S * 1000) break;
      await sleep(1000);
    }
    const indexSeconds = ((allIndexedAt ?? Date.now()) - lastWrite) / 1000;
    log(
      `${acks.length - pending.length}/${acks.length} found by /v0/search through ${survivor.name}; ${notIndexed.length} artifacts not indexed and embedded; ${allIndexedAt ? `all indexed ${indexSeconds.toFixed(1)} s after the last write` : `gave up after ${indexSeconds.toFixed(0)} s`}`,
    );

    // Each passage embedded once: among the responses delivered to the workers (a held or aborted
    // request does not count), no text twice, and each write's marker in exactly one text.
    const workerKeys = new Set(workers.map((w) => w.key));
    const texts = embeddings.delivered
      .filter((r) => workerKeys.has(r.apiKey))
      .flatMap((r) => r.texts.map((text) => ({ text, by: r.apiKey })));
    const seen = new Map<string, string[]>();
    for (const { text, by } of texts) seen.set(text, [...(seen.get(text) ?? []), by]);
    const duplicates = [...seen].filter(([, by]) => by.length > 1);
    for (const [text, by] of duplicates.slice(0, 10))
      log(`EMBEDDED ${by.length} TIMES (by ${by.join(', ')}): ${JSON.stringify(text.slice(0, 120))}`);
    const embeddedPaths = (await listArtifacts()).map((r) => r.path);
    const markerCounts = embeddedPaths.map((p) => ({
      p,
      n: texts.filter((t) => t.text.includes(markers.get(p) ?? '\0')).length,
    }));
    const notOnce = markerCounts.filter((m) => m.n !== 1);
    for (const m of notOnce.slice(0, 10)) log(`${m.p}: its marker is in ${m.n} delivered texts (want 1)`);
    log(
      `${texts.length} texts embedded (delivered to the workers) for ${embeddedPaths.length} artifacts; ${duplicates.length} duplicates; ${notOnce.length} artifacts not embedded exactly once`,
    );

    if (pending.length || notIndexed.length) {
      const byId = new Map<string, Pending>(pending.map((a) => [a.artId, a]));
      for (const r of notIndexed)
        if (!byId.has(r.id))
          byId.set(r.id, {
            artId: r.id,
            path: r.path,
            via: ackedIds.has(r.id) ? 'acknowledged' : 'never acknowledged',
          });
      await explain([...byId.values()], config, embeddings);
      await dumpDatabaseActivity(env.DATABASE_URL!);
    }

    const numbers = [
      `acknowledged ${Object.entries(byApi)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')}`,
      `committed but unacknowledged ${unacked.length}`,
      `worker killed mid-batch ${victimWorker?.name ?? 'none'}`,
      `texts embedded ${texts.length}`,
      `duplicates ${duplicates.length}`,
      `last write to all indexed ${allIndexedAt ? `${indexSeconds.toFixed(1)} s` : 'never'}`,
    ];
    log(numbers.join('; '));
    const ok =
      acks.length > 0 &&
      readOk === acks.length &&
      pending.length === 0 &&
      notIndexed.length === 0 &&
      byApi['api-a'] > 0 &&
      byApi['api-b'] > 0 &&
      victimWorker !== undefined &&
      duplicates.length === 0 &&
      notOnce.length === 0 &&
      (unacked.length > 0 || !STRICT);
    log(`${ok ? 'PASS' : 'FAIL'} in ${((Date.now() - started) / 1000).toFixed(1)} s (logs: ${logDir})`);
    return ok;
  } finally {
    await dbClient?.end().catch(() => {});
    for (const p of procs.reverse()) await p.stop();
    await stack?.stop();
    await embeddings.close();
  }
}

const ok = await main().catch((err) => {
  console.error(`[topology] FAIL: ${(err as Error).stack ?? String(err)}`);
  return false;
});
if (ok) rmSync(dataDir, { recursive: true, force: true });
process.exit(ok ? 0 : 1);
