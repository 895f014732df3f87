import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** A tenant's drive. Unclaimed drives carry `expires_at`; claiming clears it and sets the owner. */
export const Drive = defineEntity({
  name: 'Drive',
  tableName: 'drives',
  properties: {
    id: p.string().primary(),
    ownerEmail: p.string().nullable(),
    /** The name the owner gave the drive (null: shown by its id). */
    name: p.string().nullable(),
    /** The web account that claimed the drive through the claim page (see docs/decisions.md). */
    ownerUserId: p.string().nullable(),
    organizationId: p.string().nullable(),
    claimedAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    lastActivityAt: p.datetime().onCreate(() => new Date()),
    expiresAt: p.datetime().nullable(),
    deletedAt: p.datetime().nullable(),
    purgeAt: p.datetime().nullable(),
    settings: p.json<DriveSettings>().default('{}'),
    /** Bytes counted against the quota; the artifacts domain keeps it current (see src/files/quota.ts). */
  },
});

export interface DriveSettings {
  wiki_indexing?: boolean;
}

export type DriveRow = InferEntity<typeof Drive>;
