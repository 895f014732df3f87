import { Agent, createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeGracefully } from '../../src/server/graceful-close.js';
import { loadConfig } from '../../src/lib/config.js';
import { closeContext, createContext } from '../../src/platform/context.js';
import { utcMonth } from '../../src/platform/usage-counters.js';
import { createTenant } from '../helpers/tenant.js';

/**
 * Stopping a process: what is in flight finishes before the database pool closes. A usage flush
 * that took a connection while the ORM was closing used to hold it forever (Kysely releases a
 * connection it acquired only if the driver still exists), so the close never returned.
 */
const config = loadConfig(process.env);
let db: pg.Client;

beforeAll(async () => {
  db = new pg.Client({ connectionString: config.database.url });
  await db.connect();
});
afterAll(async () => {
  await db?.end();
});

const readsOf = async (driveId: string) =>
  Number(
    (
      await db.query(
        `select coalesce(sum(count), 0) as n from usage_counters where drive_id = $1 and kind = 'reads' and month = $2`,
        [driveId, utcMonth()],
      )
    ).rows[0].n,
  );

const withinSeconds = <T>(p: Promise<T>, s: number) =>
  Promise.race([p.then(() => 'done' as const), new Promise<'hung'>((r) => setTimeout(() => r('hung'), s * 1000))]);

describe('shutdown', () => {
  it('closing the context while a usage flush is taking its connection writes the counts and returns', async () => {
    for (let round = 0; round < 5; round++) {
      // A fresh context has no idle connection: the flush has to open one while the close runs.
      const ctx = await createContext(config, 'shutdown-test');
      const { driveId } = await createTenant(ctx);
      await ctx.orm.em.fork().getConnection().execute('select 1');
      await ctx.pool.query('select 1');
      const before = await readsOf(driveId);
      for (let i = 0; i < 3; i++) ctx.usageMeter.count(driveId);
      const flushing = ctx.usageMeter.flush();
      expect(await withinSeconds(Promise.all([closeContext(ctx), flushing]), 15)).toBe('done');
      expect(await readsOf(driveId)).toBe(before + 3);
    }
  });

  it('a request in flight is answered before the listener closes; an idle keep-alive connection does not hold the close', async () => {
    const server = createServer((_req, res) => setTimeout(() => res.end('finished'), 300));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    const answer = new Promise<string>((resolve, reject) => {
      const req = request({ port, host: '127.0.0.1', path: '/', agent: new Agent({ keepAlive: true }) }, (res) => {
        let body = '';
        res.on('data', (c) => (body += c));
        res.on('end', () => resolve(body));
      });
      req.on('error', reject);
      req.end();
    });
    await new Promise((r) => setTimeout(r, 50));
    let cutOff = false;
    const closeAll = server.closeAllConnections.bind(server);
    server.closeAllConnections = () => ((cutOff = true), closeAll());
    await closeGracefully(server, 60_000);
    expect(await answer).toBe('finished');
    // It closed because the answered connection went away, not by cutting connections at the grace's end.
    expect(cutOff).toBe(false);
  });
});
