import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/**
 * An agent's identity on one drive. `assertionJti` names the one identity assertion that is
 * currently valid: issuing a new one (claim, re-issue) replaces it, which revokes the old one.
 */
export const AgentIdentity = defineEntity({
  name: 'AgentIdentity',
  tableName: 'agent_identities',
  properties: {
    id: p.string().primary(),
    driveId: p.string(),
    kind: p.enum(['anonymous', 'id_jag'] as const),
    status: p.enum(['unclaimed', 'claimed'] as const),
    claimTokenHash: p.string().unique(),
    assertionJti: p.string().nullable(),
    provider: p.string().nullable(),
    subject: p.string().nullable(),
    email: p.string().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    claimedAt: p.datetime().nullable(),
  },
});

export type AgentIdentityRow = InferEntity<typeof AgentIdentity>;
