import type { S3Client } from '@aws-sdk/client-s3';
import type { Client } from '@temporalio/client';
import type { Config } from '../lib/config.js';
import { createOrm, type Orm } from '../db/orm.js';
import { SqlPool } from '../db/pool.js';
import { PreparedStatements } from '../db/prepared.js';
import { createLogger, type Logger } from '../lib/logger.js';
import { UsageMeter } from './usage-meter.js';
import { ArtifactChangeHub } from './after-commit.js';
import { BlobCache } from '../storage/blob-cache.js';
import { createS3Client } from '../storage/s3.js';
import { createTemporalClient } from '../temporal/client.js';

/** What a process (API or worker) shares across requests and activities. */
export interface AppContext {
  config: Config;
  logger: Logger;
  orm: Orm;
  /** The ORM's own pg pool, for raw SQL and search (see db/pool.ts): one pool per process. */
  pool: SqlPool;
  s3: S3Client;
  temporal: Client;
  /** Monthly usage counts (reads, retrieval queries, indexing passes), batched (see src/platform/usage-meter.ts). */
  usageMeter: UsageMeter;
  /** Small blobs held in memory for downloads (see storage/blob-cache.ts). */
  blobCache: BlobCache;
  /** The per-request statements (authentication), prepared once per connection of the pool (see db/prepared.ts). */
  prepared: PreparedStatements;
  /** After-commit listeners of artifact changes (search's immediate patches), subscribed by the composition root. */
  artifactChanges: ArtifactChangeHub;
}

export async function createContext(config: Config, name: string): Promise<AppContext> {
  const missing = [
    !config.database.url && 'DATABASE_URL',
    !config.temporal.address && 'TEMPORAL_ADDRESS',
    !config.s3.endpoint && 'S3_ENDPOINT',
  ].filter(Boolean);
  if (missing.length)
    throw new Error(`${name} needs ${missing.join(', ')} (npm start sets them for the embedded stack)`);
  const logger = createLogger(config.logLevel, name);
  const orm = await createOrm(config.database.url!);
  const s3 = createS3Client(config.s3);
  const temporal = await createTemporalClient(config.temporal);
  const blobCache = new BlobCache({
    maxBytes: config.limits.blobCacheBytes,
    maxObjectBytes: config.limits.blobCacheMaxObjectBytes,
  });
  const pool = await SqlPool.of(orm);
  return {
    config,
    logger,
    orm,
    pool,
    s3,
    temporal,
    usageMeter: new UsageMeter(orm, logger),
    blobCache,
    prepared: new PreparedStatements(pool),
    artifactChanges: new ArtifactChangeHub(),
  };
}

export async function closeContext(ctx: AppContext): Promise<void> {
  await ctx.usageMeter.close().catch(() => {});
  await ctx.temporal.connection.close().catch(() => {});
  ctx.s3.destroy();
  await ctx.orm.close(); // also ends the one pool (ctx.pool, ctx.prepared)
}
