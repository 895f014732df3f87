import pg from 'pg';

/**
 * The one PostgreSQL pool of a process: MikroORM's own `pg.Pool` (its PostgreSQL driver is Kysely
 * over `pg`, and `getNativeClient()` hands the pool out), shared by entities, raw SQL, search and
 * the prepared statements. Statements here bypass the ORM, so they parse results with pg's own
 * type parsers: MikroORM's pool keeps timestamps as strings for its hydration, while this code
 * has always read them as Dates.
 */
const pgTypes: pg.CustomTypesConfig = pg.types;

const TIMESTAMP_OIDS = new Set([1114, 1184]);
/**
 * pg's parsers except for timestamps, kept as PostgreSQL's text (with its microseconds), as MikroORM's raw queries
 * return them: for a row that is answered like the ORM's rows (src/lib/time.ts).
 */
const textTimestamps: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    TIMESTAMP_OIDS.has(oid)
      ? (v: string) => v
      : pg.types.getTypeParser(oid, format)) as pg.CustomTypesConfig['getTypeParser'],
};

export type Row = pg.QueryResultRow;

/** The part of MikroORM's PostgreSQL driver this needs (structural, so src/db/orm.ts can import this file). */
interface OrmWithPool {
  driver: { getConnection(): { getNativeClient(): Promise<unknown> } };
}

/** What a statement needs: a pool or one checked-out client (a transaction). */
export interface Sql {
  query<R extends Row>(text: string, values?: unknown[]): Promise<pg.QueryResult<R>>;
}

/**
 * Run on each new connection of the pool, before its first query. No parallel workers for lexical
 * search: starting one costs more (5-15 ms) than a selective query's whole work, and the planner
 * asks for them on a large drive from its row estimates; every other statement of the service is a
 * key lookup; the semantic leg's scan is a top-N that gains nothing from a worker on 2 cores
 * (docs/decisions/search.md). Only a plan preference, so a failure is ignored.
 */
export async function onConnect(client: { query(sql: string): Promise<unknown> }): Promise<void> {
  await client.query('set max_parallel_workers_per_gather = 0').catch(() => {});
}

export interface SqlSession extends Sql {
  onNotification(fn: () => void): void;
  end(): void;
}

export class SqlPool implements Sql {
  private constructor(
    private readonly pool: pg.Pool,
    private readonly owned: boolean,
  ) {}

  /** The ORM's pool: what every process uses. The ORM closes it. */
  static async of(orm: OrmWithPool): Promise<SqlPool> {
    // The driver's pool is typed by the pg copy MikroORM depends on; its API is the same.
    return new SqlPool((await orm.driver.getConnection().getNativeClient()) as pg.Pool, false);
  }

  /**
   * A pool of its own, for tests and benchmarks that drive the search engine or the stage without
   * an ORM (closed by close()). The service never uses one (docs/decisions.md, Domain layer).
   */
  static standalone(databaseUrl: string, max: number): SqlPool {
    // pg-pool awaits onConnect's promise before handing out the client; @types/pg types it void.
    // eslint-disable-next-line @typescript-eslint/no-misused-promises
    const pool = new pg.Pool({ connectionString: databaseUrl, max, allowExitOnIdle: true, onConnect });
    // An idle client that loses its server is dropped; without a listener pg's 'error' would crash the process.
    pool.on('error', () => {});
    return new SqlPool(pool, true);
  }

  /** Ends a standalone pool; the shared pool belongs to the ORM, so this leaves it open. */
  async close(): Promise<void> {
    if (this.owned) await this.pool.end();
  }

  /** Connections open, idle, and callers waiting for one (the metrics' pool gauges). */
  stats(): { total: number; idle: number; waiting: number; max: number } {
    const p = this.pool;
    return { total: p.totalCount, idle: p.idleCount, waiting: p.waitingCount, max: p.options.max ?? 10 };
  }

  query<R extends Row>(text: string, values: unknown[] = []): Promise<pg.QueryResult<R>> {
    return this.pool.query<R>({ text, values, types: pgTypes });
  }

  /**
   * A named prepared statement: PostgreSQL parses and plans it once per connection (pg remembers
   * which connections know `name`). The text under one name must never change.
   */
  prepared<R extends Row>(
    name: string,
    text: string,
    values: unknown[],
    opts: { timestampsAsText?: boolean } = {},
  ): Promise<pg.QueryResult<R>> {
    return this.pool.query<R>({ name, text, values, types: opts.timestampsAsText ? textTimestamps : pgTypes });
  }

  /** Runs fn on one connection (a transaction, a `set local`); the connection is released after. */
  async withClient<T>(fn: (client: Sql) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      return await fn({
        query: <R extends Row>(text: string, values: unknown[] = []) =>
          client.query<R>({ text, values, types: pgTypes }),
      });
    } finally {
      client.release();
    }
  }

  /**
   * A connection held for a long session (a drainer's advisory lock and LISTEN, src/outbox/drain.ts).
   * end() closes it instead of returning it to the pool, so no lock or LISTEN outlives the session.
   */
  async session(): Promise<SqlSession> {
    const client = await this.pool.connect();
    return {
      query: <R extends Row>(text: string, values: unknown[] = []) => client.query<R>({ text, values, types: pgTypes }),
      onNotification: (fn: () => void) => void client.on('notification', fn),
      end: () => client.release(true),
    };
  }

  /** Runs fn in one transaction on one connection: commit on success, rollback on error. */
  transaction<T>(fn: (client: Sql) => Promise<T>): Promise<T> {
    return this.withClient(async (client) => {
      await client.query('begin');
      try {
        const result = await fn(client);
        await client.query('commit');
        return result;
      } catch (err) {
        await client.query('rollback').catch(() => {});
        throw err;
      }
    });
  }
}
