import type { EntityManager } from '@mikro-orm/postgresql';
import { hashSecret, newSecret } from '../lib/secrets.js';
import { ApiKey, type ApiKeyRow } from '../db/entities/api-key.js';
import { newId } from '../lib/ids.js';

export const API_KEY_PREFIX = 'ad_live_';

/** Mints a key for a drive (`readOnly`: it may only read). The plaintext is returned once and never stored. */
export async function mintApiKey(em: EntityManager, driveId: string, label: string | null = null, readOnly = false) {
  const key = newSecret(API_KEY_PREFIX);
  const row = em.create(ApiKey, {
    id: newId('key'),
    driveId,
    keyHash: hashSecret(key),
    prefix: key.slice(0, API_KEY_PREFIX.length + 6),
    label,
    readOnly,
  });
  await em.persist(row).flush();
  return { id: row.id, key, prefix: row.prefix, createdAt: row.createdAt, readOnly };
}

export async function revokeApiKey(em: EntityManager, driveId: string, keyId: string): Promise<boolean> {
  const affected = await em.nativeUpdate(ApiKey, { id: keyId, driveId, revokedAt: null }, { revokedAt: new Date() });
  return affected > 0;
}

/** A drive's keys, newest first, without secrets (for the dashboard). */
export async function listApiKeys(em: EntityManager, driveId: string): Promise<ApiKeyRow[]> {
  return em.find(ApiKey, { driveId }, { orderBy: { createdAt: 'desc', id: 'desc' } });
}
