import type { EntityManager } from '@mikro-orm/postgresql';
import type { Config } from '../config.js';
import { storageUsedBytes } from '../drive/quota.js';
import { driveWritesThisHour, hourWindow } from './rate-limits.js';

/**
 * Metering. Storage is the artifacts domain's counter (storage-usage.ts); monthly counters
 * live in usage_counters keyed by UTC month, bumped with one upsert by whoever does the work.
 */
export type UsageKind = 'reads' | 'indexing_ops' | 'retrieval_queries';

/** First day of the current UTC month, as 'YYYY-MM-01'. */
export function utcMonth(now = new Date()): string {
  return `${now.getUTCFullYear()}-${String(now.getUTCMonth() + 1).padStart(2, '0')}-01`;
}

/** Counts one operation of `kind` for the drive in the current UTC month. */
export async function incrementUsage(em: EntityManager, driveId: string, kind: UsageKind, by = 1): Promise<void> {
  await em.execute(
    `insert into usage_counters (drive_id, month, kind, count) values (?, ?, ?, ?)
     on conflict (drive_id, month, kind) do update set count = usage_counters.count + excluded.count`,
    [driveId, utcMonth(), kind, by],
  );
}

export async function usageReport(em: EntityManager, config: Config, driveId: string) {
  const month = utcMonth();
  const [storage, writes, rows] = await Promise.all([
    storageUsedBytes(em, driveId),
    driveWritesThisHour(em, driveId),
    em.execute<{ kind: UsageKind; count: string }[]>(
      'select kind, count from usage_counters where drive_id = ? and month = ?',
      [driveId, month],
    ),
  ]);
  const monthly = (kind: UsageKind) => ({ used: Number(rows.find((r) => r.kind === kind)?.count ?? 0), limit: 0 });
  return {
    drive_id: driveId,
    storage: { used: storage, limit: config.limits.storageQuotaBytes },
    writes: { used: writes, limit: config.limits.writeBudgetPerDrivePerHour, resets_at: new Date(hourWindow().resetS * 1000).toISOString() },
    ops_this_month: {
      month: month.slice(0, 7),
      reads: monthly('reads'),
      indexing_ops: monthly('indexing_ops'),
      retrieval_queries: monthly('retrieval_queries'),
    },
  };
}
