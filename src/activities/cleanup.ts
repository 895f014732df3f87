import type { AppContext } from '../context.js';
import { purgeExpired } from '../services/purge.js';

export interface CleanupActivities {
  purgeExpired(): Promise<Record<string, number>>;
}

/** Purges rows whose retention has ended, then unreferenced S3 objects (src/services/purge.ts). */
export function createCleanupActivities(ctx: AppContext): CleanupActivities {
  return {
    async purgeExpired() {
      return purgeExpired(ctx);
    },
  };
}
