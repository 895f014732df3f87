import type { EntityManager } from '@mikro-orm/postgresql';
import { utcMonth, type UsageKind } from '../platform/usage-counters.js';
import type { Config } from '../lib/config.js';
import { storageUsedBytes } from '../files/quota.js';
import type { RequestContext } from '../platform/request-context.js';
import { driveWritesThisHour, hourWindow } from '../platform/rate-limits.js';

/** The usage report (spec 2.9): storage now, writes this hour, operations this UTC month. */

/** GET /v0/drives/me/usage; this process's pending reads are flushed first, so the report includes them. */
export async function driveUsage(rc: RequestContext) {
  await rc.app.usageMeter.flush(rc.driveId);
  return usageReport(rc.app.orm.em.fork(), rc.app.config, rc.driveId);
}

async function usageReport(em: EntityManager, config: Config, driveId: string) {
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
    writes: {
      used: writes,
      limit: config.limits.writeBudgetPerDrivePerHour,
      resets_at: new Date(hourWindow().resetS * 1000).toISOString(),
    },
    ops_this_month: {
      month: month.slice(0, 7),
      reads: monthly('reads'),
      indexing_ops: monthly('indexing_ops'),
      retrieval_queries: monthly('retrieval_queries'),
    },
  };
}
