import { retireUnconfirmedAccounts } from '../identity/password-reset.js';
import type { AppContext } from '../platform/context.js';
import { purgeExpired } from '../files/purge.js';
import { purgeExpiredCredentials } from '../identity/expired-credentials.js';
import { purgeEndedWindows } from '../platform/rate-limits.js';
import { sweepUploadOrphans } from '../uploads/orphans.js';
import { pruneWebhookRecords } from '../feed/webhooks.js';

export interface CleanupActivities {
  purgeExpired(): Promise<Record<string, number>>;
}

/** A repair pass run after each purge (the search index sweeper); returns counts for the run's result. */
export type CleanupSweep = () => Promise<Record<string, number> | null>;

/**
 * Purges rows whose retention has ended, then unreferenced S3 objects (src/files/purge.ts);
 * then runs the sweep when the process binds one (the worker binds the search index sweeper).
 */
export function createCleanupActivities(ctx: AppContext, sweep?: CleanupSweep): CleanupActivities {
  return {
    async purgeExpired() {
      const purged = await purgeExpired(ctx);
      const result: Record<string, number> = { ...purged, rate_counters: await purgeEndedWindows(ctx.orm.em.fork()) };
      for (const [table, n] of Object.entries(await purgeExpiredCredentials(ctx))) result[table] = n;
      result.upload_orphans = await sweepUploadOrphans(ctx, ctx.config.durations.uploadOrphanGraceS);
      Object.assign(result, await pruneWebhookRecords(ctx));
      result.unconfirmed_accounts_retired = await retireUnconfirmedAccounts(ctx);
      const swept = sweep ? await sweep() : null;
      for (const [k, v] of Object.entries(swept ?? {})) result[`search_${k}`] = v;
      return result;
    },
  };
}
