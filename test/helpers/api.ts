import { createServer } from 'node:http';
import pg from 'pg';
import type { AddressInfo } from 'node:net';
import { createApp } from '../../src/server/app.js';
import { closeGracefully } from '../../src/server/graceful-close.js';
import { answerClientErrors } from '../../src/edge/client-errors.js';
import { limitConnections } from '../../src/edge/connection-limit.js';
import { loadConfig } from '../../src/lib/config.js';
import { closeContext, createContext, type AppContext } from '../../src/platform/context.js';
import { createContentApp } from '../../src/web/viewer/content-origin.js';
import { trackCheckouts } from './pool-checkouts.js';
import { attachMailbox, detachMailbox, startMailbox } from './mailbox.js';

export interface TestApi {
  url: string;
  /** The content origin (uploaded HTML/SVG/PDF): http://localhost:<port>, another site than the API's 127.0.0.1. */
  contentUrl: string;
  ctx: AppContext;
  close(): Promise<void>;
}

/** An API instance in this test process, on a free port, against the test stack. Overrides change settings. */
export async function startTestApi(overrides: Record<string, string> = {}): Promise<TestApi> {
  const server = createServer();
  answerClientErrors(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const contentServer = createServer();
  await new Promise<void>((resolve) => contentServer.listen(0, '127.0.0.1', resolve));
  const contentUrl = `http://localhost:${(contentServer.address() as AddressInfo).port}`;
  // Sign-up finishes through a mailed link: every test API sends to a real SMTP server on 127.0.0.1.
  const ownMailbox = overrides.SMTP_URL ? undefined : await startMailbox();
  const smtp = overrides.SMTP_URL ?? ownMailbox!.url;
  attachMailbox(url, smtp);
  const config = loadConfig({
    ...process.env,
    PUBLIC_BASE_URL: url,
    CONTENT_URL: contentUrl,
    SMTP_URL: smtp,
    ...overrides,
  });
  limitConnections(server, config.http.maxConnections);
  const ctx = await createContext(config, 'api-test');
  server.on('request', createApp(ctx));
  const heldClients = trackCheckouts((ctx.pool as unknown as { pool: Parameters<typeof trackCheckouts>[0] }).pool);
  contentServer.on('request', createContentApp(ctx));
  return {
    url,
    contentUrl,
    ctx,
    async close() {
      // As src/main.ts stops: requests in flight finish (here within 2 s) before the pool closes.
      await closeStep(
        ctx,
        heldClients,
        'the servers',
        Promise.all([closeGracefully(server, 2000), closeGracefully(contentServer, 2000)]),
      );
      await closeStep(ctx, heldClients, 'the context (usage meter, Temporal client, pool)', closeContext(ctx));
      detachMailbox(url);
      await ownMailbox?.close();
    },
  };
}

/**
 * Waits for one step of closing a test API; one still pending after 30 s is reported with what the
 * pool and PostgreSQL are doing (CI saw close hang a few times: a usage flush taking a connection while the pool
 * closed) and left
 * behind, so the suite's own result stands.
 */
async function closeStep(
  ctx: AppContext,
  heldClients: () => string[],
  what: string,
  step: Promise<unknown>,
): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const slow = new Promise<'slow'>((r) => (timer = setTimeout(() => r('slow'), 30_000)));
  const outcome = await Promise.race([step.then(() => 'done' as const), slow]);
  clearTimeout(timer);
  if (outcome === 'done') return;
  const pool = (ctx.pool as unknown as { pool: { totalCount: number; idleCount: number; waitingCount: number } }).pool;
  const db = new pg.Client({ connectionString: ctx.config.database.url });
  await db.connect();
  const { rows } = await db.query(
    `select pid, state, wait_event_type, wait_event, round(extract(epoch from now() - query_start)) as query_s, left(query, 200) as query
       from pg_stat_activity where datname = current_database() and state <> 'idle' and pid <> pg_backend_pid()`,
  );
  await db.end();
  console.error(
    `[test-api] closing ${what}: still pending after 30 s; pool total ${pool.totalCount}, idle ${pool.idleCount}, waiting ${pool.waitingCount}; busy sessions:`,
    rows,
  );
  for (const stack of heldClients()) console.error(`[test-api] a client still held, ${stack}`);
}
