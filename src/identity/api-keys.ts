import type { EntityManager } from '@mikro-orm/postgresql';
import { hashSecret, newSecret } from '../lib/secrets.js';
import { ApiKey, type ApiKeyRow } from '../db/entities/api-key.js';
import { newId } from '../lib/ids.js';
import { AppError } from '../lib/errors.js';
import { one } from '../db/sql.js';
import type { RequestContext } from '../platform/request-context.js';

export const API_KEY_PREFIX = 'ad_live_';

/**
 * Mints a key for a drive (`readOnly`: it may only read; `memoryPrefix`: the folder its memory tool's `/memories` maps
 * to, null for the default). The plaintext is returned once and never stored.
 */
export async function mintApiKey(
  em: EntityManager,
  driveId: string,
  label: string | null = null,
  readOnly = false,
  memoryPrefix: string | null = null,
) {
  const key = newSecret(API_KEY_PREFIX);
  const row = em.create(ApiKey, {
    id: newId('key'),
    driveId,
    keyHash: hashSecret(key),
    prefix: key.slice(0, API_KEY_PREFIX.length + 6),
    label,
    readOnly,
    memoryPrefix,
  });
  await em.persist(row).flush();
  return { id: row.id, key, prefix: row.prefix, createdAt: row.createdAt, readOnly, memoryPrefix };
}

export async function revokeApiKey(em: EntityManager, driveId: string, keyId: string): Promise<boolean> {
  const affected = await em.nativeUpdate(ApiKey, { id: keyId, driveId, revokedAt: null }, { revokedAt: new Date() });
  return affected > 0;
}

/** A drive's keys, newest first, without secrets (for the dashboard). */
export async function listApiKeys(em: EntityManager, driveId: string): Promise<ApiKeyRow[]> {
  return em.find(ApiKey, { driveId }, { orderBy: { createdAt: 'desc', id: 'desc' } });
}

/**
 * POST /v0/api-keys: an agent of a claimed drive mints a key for a client that cannot renew tokens (an MCP client
 * configured with a fixed header, `agent-drive mcp --api-key`). An unclaimed drive gets none: its human decides.
 */
export async function mintKeyForCaller(
  rc: RequestContext,
  label: string,
  opts: { readOnly: boolean; memoryPrefix: string | null },
) {
  const em = rc.app.orm.em.fork();
  const drive = await one<{ claimed_at: Date | null }>(em, 'select claimed_at from drives where id = ?', [rc.driveId]);
  if (rc.principal.scope !== 'full' || !drive?.claimed_at)
    throw new AppError('DRIVE_UNCLAIMED', 'API keys are minted for a claimed drive: have a human claim it first');
  return mintApiKey(em, rc.driveId, label, opts.readOnly, opts.memoryPrefix);
}
