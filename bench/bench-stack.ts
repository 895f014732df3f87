import { rmSync } from 'node:fs';
import type http from 'node:http';
import { request } from 'node:http';
import path from 'node:path';
import pg from 'pg';
import { loadConfig } from '../src/lib/config.js';
import { createOrm, migrate } from '../src/db/orm.js';
import { createDrive } from '../src/drives/drives.js';
import { mintApiKey } from '../src/identity/api-keys.js';
import { startStack } from '../scripts/stack/index.js';
import { spawnManaged, waitForPort, type ManagedProcess } from '../scripts/stack/process.js';
import { testStackEnv } from '../test/stack-env.js';
import { cpuSnapshot, type CpuSnapshot } from './process-cpu.js';

/**
 * The whole stack a bench measures, as in production: the embedded PostgreSQL (with
 * pg_stat_statements preloaded), the Temporal dev server, the S3 gateway, the API as its own
 * process and, when asked, the worker. The API and the worker log in to PostgreSQL as their own
 * roles (members of the owner role, so they see the same tables), which lets pg_stat_statements
 * count each process's statements apart from the other's and from the bench's own.
 *
 * Ports: base+1..base+6 for the stack (laid out by test/stack-env.ts), the API on base+10 and its
 * content origin on base+11.
 */
export interface BenchStackOptions {
  base: number;
  dataDir: string;
  /** Start the worker too (indexing, purge, ...). */
  worker?: boolean;
  /** Extra node flags for the API process (e.g. --cpu-prof). */
  apiNodeArgs?: string[];
  env?: Record<string, string>;
}

export interface BenchStack {
  url: string;
  /** The environment of the API process (DATABASE_URL of the bench's own role). */
  env: Record<string, string | undefined>;
  /** The bench's own connection (owner role): pg_stat_statements, catch-up checks. */
  admin: pg.Pool;
  pids: { api?: number; worker?: number };
  cpu: () => CpuSnapshot;
  /** Throws if the API or the worker has exited. */
  alive: () => void;
  /** A new claimed drive and an API key for it. */
  driveWithKey: () => Promise<{ driveId: string; key: string }>;
  stop: () => Promise<void>;
}

export const ROLES = { api: 'drive_api', worker: 'drive_worker' } as const;

const withUser = (databaseUrl: string, user: string) => {
  const u = new URL(databaseUrl);
  u.username = user;
  return u.toString();
};

export async function startBenchStack(opts: BenchStackOptions): Promise<BenchStack> {
  const { base, dataDir } = opts;
  // Client metadata over http is a test-only switch, refused in production (which the benches run as).
  const {
    CLEANUP_INTERVAL_S: _testCleanupInterval,
    OAUTH_CIMD_ALLOW_HTTP_LOOPBACK: _testCimd,
    ...ports
  } = testStackEnv(base);
  const env: Record<string, string | undefined> = {
    ...process.env,
    ...ports,
    NODE_ENV: 'production',
    LOG_LEVEL: 'silent',
    DATA_DIR: dataDir,
    TEMPORAL_TASK_QUEUE: `agent-drive-bench-${base}`,
    STORAGE_QUOTA_BYTES: String(64 * 1024 ** 3),
    // The benches measure throughput, not the write budgets (per credential and per drive).
    WRITE_BUDGET_PER_HOUR: String(1_000_000),
    WRITE_BUDGET_PER_DRIVE_PER_HOUR: String(1_000_000),
    ...opts.env,
  };
  rmSync(dataDir, { recursive: true, force: true });
  const log = (m: string) => process.stderr.write(`[bench-stack] ${m}\n`);
  const stack = await startStack(loadConfig(env), log, {
    mailCatcher: false,
    postgresFlags: [
      '-c',
      'shared_preload_libraries=pg_stat_statements',
      '-c',
      'pg_stat_statements.track=top',
      '-c',
      'pg_stat_statements.track_planning=on',
      ...(process.env.BENCH_PG_FLAGS ?? '').split(' ').filter(Boolean),
    ],
  });
  Object.assign(env, stack.env);
  const procs: ManagedProcess[] = [];
  let admin: pg.Pool | undefined;
  const stop = async () => {
    for (const p of procs.reverse()) await p.stop();
    await admin?.end();
    await stack.stop();
  };
  try {
    const orm = await createOrm(env.DATABASE_URL!, { poolMax: 2 });
    await migrate(orm);
    await orm.close();
    admin = new pg.Pool({ connectionString: env.DATABASE_URL!, max: 2 });
    // An idle client that loses its server while the stack stops must not crash the bench after its results.
    admin.on('error', () => {});
    const owner = new URL(env.DATABASE_URL!).username;
    const password = decodeURIComponent(new URL(env.DATABASE_URL!).password);
    await admin.query('create extension if not exists pg_stat_statements');
    for (const role of Object.values(ROLES)) {
      await admin.query(`create role ${role} login password '${password.replace(/'/g, "''")}' in role ${owner}`);
    }
    const url = `http://127.0.0.1:${base + 10}`;
    const common = { ...env, HOST: '127.0.0.1', PORT: String(base + 10), PUBLIC_BASE_URL: url };
    const logDir = path.resolve(dataDir, 'logs');
    const pids: BenchStack['pids'] = {};
    if (opts.worker) {
      const worker = spawnManaged(
        'bench-worker',
        process.execPath,
        [
          ...(process.env.BENCH_WORKER_NODE_ARGS ?? '').split(' ').filter(Boolean),
          '--import',
          'tsx',
          path.resolve('src/worker.ts'),
        ],
        {
          logDir,
          env: { ...common, DATABASE_URL: withUser(env.DATABASE_URL!, ROLES.worker) } as NodeJS.ProcessEnv,
        },
      );
      procs.push(worker);
      pids.worker = worker.child.pid;
    }
    const api = spawnManaged(
      'bench-api',
      process.execPath,
      [...(opts.apiNodeArgs ?? []), '--import', 'tsx', path.resolve('src/main.ts')],
      {
        logDir,
        env: { ...common, DATABASE_URL: withUser(env.DATABASE_URL!, ROLES.api) } as NodeJS.ProcessEnv,
      },
    );
    procs.push(api);
    await waitForPort(base + 10, api);
    pids.api = api.child.pid;
    const pool = admin;
    return {
      url,
      env: common,
      admin: pool,
      pids,
      cpu: () => cpuSnapshot(pids),
      alive: () => {
        for (const p of procs)
          if (p.child.exitCode !== null)
            throw new Error(`${p.name} exited with code ${p.child.exitCode} (see ${logDir}/${p.name}.log)`);
      },
      driveWithKey: async () => {
        const orm = await createOrm(env.DATABASE_URL!, { poolMax: 1 });
        try {
          const em = orm.em.fork();
          const drive = await createDrive(em, { ownerEmail: 'bench@example.test' });
          return { driveId: drive.id, key: (await mintApiKey(em, drive.id, 'bench')).key };
        } finally {
          await orm.close();
        }
      },
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** Statement executions by role since the last reset, from pg_stat_statements (BEGIN/COMMIT included). */
export interface StatementCounts {
  byRole: Map<string, number>;
  /** role → normalised statement text → calls */
  byStatement: Map<string, Map<string, number>>;
  /** role → normalised statement text → ms PostgreSQL spent executing it (lock waits included) */
  msByStatement: Map<string, Map<string, number>>;
  /** role → normalised statement text → ms PostgreSQL spent planning it */
  planMsByStatement: Map<string, Map<string, number>>;
}

export async function resetStatements(admin: pg.Pool): Promise<void> {
  await admin.query('select pg_stat_statements_reset()');
}

export async function readStatements(admin: pg.Pool): Promise<StatementCounts> {
  const { rows } = await admin.query<{ role: string; calls: string; plan_ms: number; ms: number; query: string }>(
    `select r.rolname as role, s.calls::text as calls, s.total_plan_time as plan_ms, s.total_exec_time as ms, s.query
       from pg_stat_statements s join pg_roles r on r.oid = s.userid
      where s.dbid = (select oid from pg_database where datname = current_database())`,
  );
  const byRole = new Map<string, number>();
  const byStatement = new Map<string, Map<string, number>>();
  const msByStatement = new Map<string, Map<string, number>>();
  const planMsByStatement = new Map<string, Map<string, number>>();
  const add = (into: Map<string, Map<string, number>>, role: string, text: string, n: number) => {
    const m = into.get(role) ?? new Map<string, number>();
    m.set(text, (m.get(text) ?? 0) + n);
    into.set(role, m);
  };
  for (const row of rows) {
    const calls = Number(row.calls);
    byRole.set(row.role, (byRole.get(row.role) ?? 0) + calls);
    const text = row.query.replace(/\s+/g, ' ').trim();
    add(byStatement, row.role, text, calls);
    add(msByStatement, row.role, text, Number(row.ms));
    add(planMsByStatement, row.role, text, Number(row.plan_ms));
  }
  return { byRole, byStatement, msByStatement, planMsByStatement };
}

/**
 * Temporal work, from the dev server's Prometheus endpoint (TEMPORAL_METRICS_PORT): the frontend's
 * `service_requests` counter by `operation`. Workflow tasks are the tasks workers completed or
 * failed (RespondWorkflowTaskCompleted/Failed); signals are SignalWorkflowExecution plus
 * SignalWithStartWorkflowExecution; starts are StartWorkflowExecution. Each is one RPC the server
 * serves and one or more rows of history it writes.
 */
export interface TemporalCounts {
  workflowTasks: number;
  signals: number;
  starts: number;
  activityTasks: number;
}

const OPERATIONS: Record<string, keyof TemporalCounts> = {
  RespondWorkflowTaskCompleted: 'workflowTasks',
  RespondWorkflowTaskFailed: 'workflowTasks',
  SignalWorkflowExecution: 'signals',
  SignalWithStartWorkflowExecution: 'signals',
  StartWorkflowExecution: 'starts',
  RespondActivityTaskCompleted: 'activityTasks',
  RespondActivityTaskFailed: 'activityTasks',
};

export async function readTemporal(env: Record<string, string | undefined>): Promise<TemporalCounts> {
  const config = loadConfig(env);
  const text = await (await fetch(`http://127.0.0.1:${config.embedded.temporalMetricsPort}/metrics`)).text();
  const out: TemporalCounts = { workflowTasks: 0, signals: 0, starts: 0, activityTasks: 0 };
  // The service's namespace only: the dev server's own system workflows run in temporal-system.
  const namespace = `namespace="${config.temporal.namespace}"`;
  for (const line of text.split('\n')) {
    if (!line.startsWith('service_requests{')) continue;
    if (!line.includes('service_name="frontend"') || !line.includes(namespace)) continue;
    const op = /operation="(\w+)"/.exec(line)?.[1];
    const key = op ? OPERATIONS[op] : undefined;
    if (key) out[key] += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return out;
}

export function temporalDelta(a: TemporalCounts, b: TemporalCounts): TemporalCounts {
  return {
    workflowTasks: b.workflowTasks - a.workflowTasks,
    signals: b.signals - a.signals,
    starts: b.starts - a.starts,
    activityTasks: b.activityTasks - a.activityTasks,
  };
}

/** Live artifacts of a drive whose current version has no search document yet. */
export async function notYetIndexed(admin: pg.Pool, driveId: string): Promise<number> {
  const { rows } = await admin.query<{ n: string }>(
    `select count(*)::text as n from artifacts a
      where a.drive_id = $1 and a.deleted_at is null
        and not exists (select 1 from search_documents s where s.art_id = a.id and s.version_number >= a.version_number)`,
    [driveId],
  );
  return Number(rows[0]!.n);
}

export const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};

/** PUTs a markdown note through `agent`; resolves with the time its 200 arrived (performance.now()). */
export function putText(
  agent: http.Agent,
  url: string,
  headers: Record<string, string>,
  body: string,
): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'PUT',
        headers: { ...headers, 'content-type': 'text/markdown', 'content-length': String(Buffer.byteLength(body)) },
        agent,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          if (res.statusCode !== 200) reject(new Error(`PUT ${url} answered ${res.statusCode}: ${text}`));
          else resolve(performance.now());
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
