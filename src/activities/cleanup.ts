import type { AppContext } from '../context.js';
import { purgeExpired } from '../services/purge.js';
import { purgeEndedWindows } from '../services/rate-limits.js';

export interface CleanupActivities {
  purgeExpired(): Promise<Record<string, number>>;
}

/** Purges rows whose retention has ended, then unreferenced S3 objects (src/services/purge.ts). */
export function createCleanupActivities(ctx: AppContext): CleanupActivities {
  return {
    async purgeExpired() {
      const purged = await purgeExpired(ctx);
      return { ...purged, rate_counters: await purgeEndedWindows(ctx.orm.em.fork()) };
    },
  };
}
