import { loadConfig } from '../src/lib/config.js';
import { createOrm, migrate } from '../src/db/orm.js';
import { createS3Client, ensureBucket } from '../src/storage/s3.js';

/** One-shot preparation for external dependencies (docker-compose's migrate job): migrations and the bucket. */
const config = loadConfig();
if (!config.database.url) throw new Error('DATABASE_URL is required');
const orm = await createOrm(config.database.url, { poolMax: 1 });
await migrate(orm);
await orm.close();
if (config.s3.endpoint) {
  const s3 = createS3Client(config.s3);
  await ensureBucket(s3, config.s3.bucket);
  s3.destroy();
}
console.log('migrations applied; bucket ready');
