import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** A long-lived drive API key. Only the SHA-256 of the secret is stored; `prefix` lets owners recognise a key. */
export const ApiKey = defineEntity({
  name: 'ApiKey',
  tableName: 'api_keys',
  properties: {
    id: p.string().primary(),
    driveId: p.string(),
    keyHash: p.string().unique(),
    prefix: p.string(),
    label: p.string().nullable(),
    /** Reads only: every write answers 403 CREDENTIAL_READ_ONLY. */
    readOnly: p.boolean().default(false),
    /** The drive folder the memory tool's `/memories` maps to for this key; null: `memories` (the default). */
    memoryPrefix: p.string().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    lastUsedAt: p.datetime().nullable(),
    revokedAt: p.datetime().nullable(),
  },
});

export type ApiKeyRow = InferEntity<typeof ApiKey>;
