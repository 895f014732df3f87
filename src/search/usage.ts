/**
 * The one place search counts usage (SPEC 2.9: indexing ops and retrieval queries per UTC month).
 * The usage table and `incrementUsage(em, driveId, kind)` belong to src/services/usage.ts on the
 * identity branch; the integrator repoints `defaultUsageRecorder` at it. Until then callers are
 * built with an explicit recorder (tests pass one that records calls).
 */
export type SearchUsageKind = 'retrieval_queries' | 'indexing_ops';

export interface UsageRecorder {
  record(driveId: string, kind: SearchUsageKind): Promise<void>;
}

/** Counts nothing: the binding for processes built before the usage service exists. */
export const noUsageRecorder: UsageRecorder = { record: async () => {} };
