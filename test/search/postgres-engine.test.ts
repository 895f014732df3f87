import { afterAll } from 'vitest';
import { createOrm, type Orm } from '../../src/db/orm.js';
import { PostgresSearchEngine } from '../../src/search/postgres-engine.js';
import { createDrive } from '../../src/services/drives.js';
import { engineContract } from './engine-contract.js';

let orm: Orm | undefined;
let engine: PostgresSearchEngine | undefined;

engineContract('postgres', async () => {
  orm = await createOrm(process.env.DATABASE_URL!, { poolMax: 2 });
  engine = new PostgresSearchEngine(process.env.DATABASE_URL!, { poolMax: 2 });
  return {
    engine,
    newDrive: async () => (await createDrive(orm!.em.fork())).id,
  };
});

afterAll(async () => {
  await engine?.close();
  await orm?.close();
});
