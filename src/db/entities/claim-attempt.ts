import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** One run of the claim ceremony. The ceremony workflow's activities write its outcome here; polls read it. */
export const ClaimAttempt = defineEntity({
  name: 'ClaimAttempt',
  tableName: 'claim_attempts',
  properties: {
    id: p.string().primary(),
    identityId: p.string(),
    attemptTokenHash: p.string().unique(),
    userCode: p.string(),
    status: p.enum(['pending', 'approved', 'declined', 'expired'] as const),
    expiresAt: p.datetime(),
    decidedByEmail: p.string().nullable(),
    decidedAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});

export type ClaimAttemptRow = InferEntity<typeof ClaimAttempt>;
export type ClaimStatus = ClaimAttemptRow['status'];
