import type { AppContext } from '../context.js';
import { purgeEndedWindows } from '../services/rate-limits.js';

export interface CleanupActivities {
  purgeExpired(): Promise<Record<string, number>>;
}

/** Purges rows whose retention has ended. Later domains add their own purge steps here. */
export function createCleanupActivities(ctx: AppContext): CleanupActivities {
  return {
    async purgeExpired() {
      const em = ctx.orm.em.fork();
      const drives = await em.getConnection().execute<{ id: string }[]>(
        'delete from drives where purge_at is not null and purge_at <= now() returning id',
      );
      return { drives: drives.length, rate_counters: await purgeEndedWindows(em) };
    },
  };
}
