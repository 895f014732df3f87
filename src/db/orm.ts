import { Migrator } from '@mikro-orm/migrations';
import { MikroORM } from '@mikro-orm/postgresql';
import { entities } from './entities/index.js';
import { migrations } from './migrations/index.js';
import { onConnect } from './pool.js';

export type Orm = MikroORM;

/**
 * The process's one pool (src/db/pool.ts shares it with raw SQL, search and prepared statements),
 * sized for what the ORM's pool (10) and the three separate pools (search 5, stage 3, prepared 4)
 * used to hold together.
 */
export async function createOrm(databaseUrl: string, opts: { poolMax?: number } = {}): Promise<Orm> {
  return MikroORM.init({
    clientUrl: databaseUrl,
    entities,
    extensions: [Migrator],
    migrations: { migrationsList: migrations, tableName: 'mikro_orm_migrations', transactional: true, snapshot: false },
    pool: { min: 0, max: opts.poolMax ?? 20 },
    driverOptions: { onConnect },
    allowGlobalContext: false,
    debug: false,
  });
}

/** Applies every pending migration; safe to run on each start. */
export async function migrate(orm: Orm): Promise<void> {
  await orm.migrator.up();
}
