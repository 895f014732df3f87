import type { AppContext } from '../context.js';
import { pgCode } from '../services/sql.js';
import { incrementUsage } from '../services/usage.js';

/**
 * The one place search counts usage (SPEC 2.9: indexing ops and retrieval queries per UTC month),
 * through `incrementUsage` of the usage service (src/services/usage.ts); the kind names are the same.
 */
export type SearchUsageKind = 'retrieval_queries' | 'indexing_ops';

export interface UsageRecorder {
  record(driveId: string, kind: SearchUsageKind): Promise<void>;
}

/** Counts into usage_counters. A drive purged meanwhile (foreign-key violation) has nothing left to count. */
export function usageRecorderFor(ctx: AppContext): UsageRecorder {
  return {
    async record(driveId, kind) {
      try {
        await incrementUsage(ctx.orm.em.fork(), driveId, kind);
      } catch (err) {
        if (pgCode(err) !== '23503') throw err;
      }
    },
  };
}

/** Counts nothing: for benches and tests that measure the engine alone. */
export const noUsageRecorder: UsageRecorder = { record: async () => {} };
