import type { AppContext } from '../platform/context.js';

/**
 * The one place search counts usage (SPEC 2.9: indexing ops and retrieval queries per UTC month),
 * through the process's usage meter, which writes `usage_counters` in batches; the kind names are the same.
 */
export type SearchUsageKind = 'retrieval_queries' | 'indexing_ops';

export interface UsageRecorder {
  record(driveId: string, kind: SearchUsageKind): Promise<void>;
}

/** Counts through the process's usage meter (batched; see src/platform/usage-meter.ts). */
export function usageRecorderFor(ctx: AppContext): UsageRecorder {
  return {
    async record(driveId, kind) {
      ctx.usageMeter.count(driveId, kind);
    },
  };
}

/** Counts nothing: for benches and tests that measure the engine alone. */
export const noUsageRecorder: UsageRecorder = { record: async () => {} };
