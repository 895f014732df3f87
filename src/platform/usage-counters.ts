import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * Metering. Storage is the artifacts domain's counter (src/files/quota.ts); monthly counters
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
