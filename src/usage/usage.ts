import type { EntityManager } from '@mikro-orm/postgresql';
import { utcMonth, type UsageKind } from '../platform/usage-counters.js';
import type { Config } from '../lib/config.js';
import { storageUsedBytes } from '../files/quota.js';
import { PINNED_BY_SNAPSHOT } from '../files/purge.js';
import type { RequestContext } from '../platform/request-context.js';
import { driveWritesThisHour, hourWindow } from '../platform/rate-limits.js';

/** The usage report (spec 2.9): storage now, writes this hour, operations this UTC month (public shape: src/shapes). */
export interface DriveUsage {
  driveId: string;
  /** `pinnedBySnapshots`: bytes of trashed artifacts kept past their purge time by a snapshot (part of `used`). */
  storage: { used: number; limit: number; pinnedBySnapshots: number };
  writes: { used: number; limit: number; resetsAt: Date };
  /** 'YYYY-MM', the UTC month the monthly counts cover. */
  month: string;
  thisMonth: Record<UsageKind, { used: number; limit: number }>;
}

/** GET /v0/drives/me/usage; this process's pending reads are flushed first, so the report includes them. */
export async function driveUsage(rc: RequestContext): Promise<DriveUsage> {
  await rc.app.usageMeter.flush(rc.driveId);
  return usageReport(rc.app.orm.em.fork(), rc.app.config, rc.driveId);
}

async function usageReport(em: EntityManager, config: Config, driveId: string): Promise<DriveUsage> {
  const month = utcMonth();
  const [storage, pinned, writes, rows] = await Promise.all([
    storageUsedBytes(em, driveId),
    em.execute<{ bytes: string | null }[]>(
      `select sum(v.size_bytes) as bytes from artifacts a join artifact_versions v on v.art_id = a.id
        where a.drive_id = ? and a.deleted_at is not null and a.purge_at <= now() and exists (${PINNED_BY_SNAPSHOT})`,
      [driveId],
    ),
    driveWritesThisHour(em, driveId),
    em.execute<{ kind: UsageKind; count: string }[]>(
      'select kind, count from usage_counters where drive_id = ? and month = ?',
      [driveId, month],
    ),
  ]);
  // limit 0: unlimited (spec 8, the free-tier default).
  const monthly = (kind: UsageKind) => ({ used: Number(rows.find((r) => r.kind === kind)?.count ?? 0), limit: 0 });
  return {
    driveId,
    storage: {
      used: storage,
      limit: config.limits.storageQuotaBytes,
      pinnedBySnapshots: Number(pinned[0]?.bytes ?? 0),
    },
    writes: {
      used: writes,
      limit: config.limits.writeBudgetPerDrivePerHour,
      resetsAt: new Date(hourWindow().resetS * 1000),
    },
    month: month.slice(0, 7),
    thisMonth: {
      reads: monthly('reads'),
      indexing_ops: monthly('indexing_ops'),
      retrieval_queries: monthly('retrieval_queries'),
    },
  };
}
