import { Migrator } from '@mikro-orm/migrations';
import { MikroORM } from '@mikro-orm/postgresql';
import { entities } from './entities/index.js';
import { migrations } from './migrations/index.js';

export type Orm = MikroORM;

export async function createOrm(databaseUrl: string, opts: { poolMax?: number } = {}): Promise<Orm> {
  return MikroORM.init({
    clientUrl: databaseUrl,
    entities,
    extensions: [Migrator],
    migrations: { migrationsList: migrations, tableName: 'mikro_orm_migrations', transactional: true, snapshot: false },
    pool: { min: 0, max: opts.poolMax ?? 10 },
    allowGlobalContext: false,
    debug: false,
  });
}

/** Applies every pending migration; safe to run on each start. */
export async function migrate(orm: Orm): Promise<void> {
  await orm.migrator.up();
}
