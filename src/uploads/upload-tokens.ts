import type { Readable } from 'node:stream';
import type { AppContext } from '../platform/context.js';
import { AppError } from '../lib/errors.js';
import type { Principal, RequestContext } from '../platform/request-context.js';
import type { ArtifactRow } from '../records/artifact-records.js';
import {
  checkChangeSummary,
  checkLabels,
  checkMetadata,
  checkNotWiki,
  checkPath,
  checkSource,
  type Source,
} from '../files/artifact-rules.js';
import { DEFAULT_CONTENT_TYPE, earlyQuota, preflightPut, putStoredArtifact } from '../files/artifacts.js';
import { prepareBlob } from '../files/blobs.js';
import { writeTransaction } from '../files/write-transaction.js';
import { hashSecret, newSecret } from '../lib/secrets.js';
import { spoolBody } from '../storage/spool.js';
import { pendingWriteInput, type PendingWriteColumns } from './pending-write.js';
import { chargeWriteOrRefuse } from '../platform/rate-limits.js';
import { one } from '../db/sql.js';

/**
 * Single-use token uploads (spec 3.6, 4.7). The `upload_url` MCP tool mints a token that freezes
 * the upload's fields; `PUT /v0/upload/{token}` (no Authorization header: the token is the
 * credential) spends it. Only the token's SHA-256 is stored. The token is consumed by a
 * conditional update inside the transaction that writes the version, so of N concurrent PUTs
 * exactly one commits, and a PUT refused for any reason (412, 413, quota, storage) leaves the
 * token unspent and writes nothing.
 */
export const UPLOAD_TOKEN_PREFIX = 'adup_';

export interface MintInput {
  path: string;
  contentType?: string;
  maxBytes?: number;
  labels?: string[];
  metadata?: Record<string, unknown>;
  source?: Source;
  changeSummary?: string | null;
  ifMatch?: number;
}

interface TokenRow extends PendingWriteColumns {
  token_hash: string;
  principal_kind: Principal['kind'];
  credential_id: string;
  identity_id: string | null;
  scope: Principal['scope'];
  content_type: string;
  max_bytes: string | number;
  consumed_at: Date | null;
  expired: boolean;
  drive_deleted: boolean;
}

const normaliseType = (ct: string) => ct.split(';')[0].trim().toLowerCase();

/** Mints a token for the caller's drive; the PUT will be charged to the minting credential's write budget. */
export async function mintUploadToken(rc: RequestContext, input: MintInput) {
  const { config } = rc.app;
  const path = checkPath(input.path);
  checkNotWiki(path);
  const cap = config.limits.maxUploadBytes;
  const maxBytes = input.maxBytes ?? cap;
  if (!Number.isInteger(maxBytes) || maxBytes < 1 || maxBytes > cap) {
    throw new AppError('INVALID_ARGUMENT', `max_bytes must be an integer from 1 to ${cap}`, { limit_bytes: cap });
  }
  const contentType = input.contentType?.trim() || DEFAULT_CONTENT_TYPE;
  if (!/^[\x20-\x7e]{1,255}$/.test(contentType))
    throw new AppError('INVALID_CONTENT_TYPE', 'content_type must be 1-255 printable ASCII characters');
  const token = newSecret(UPLOAD_TOKEN_PREFIX);
  const expiresAt = new Date(Date.now() + config.durations.uploadTokenS * 1000);
  const p = rc.principal;
  await one(
    rc.app.orm.em.fork(),
    `insert into upload_tokens (token_hash, drive_id, principal_kind, credential_id, identity_id, scope, path, content_type, max_bytes,
       labels, metadata, source, actor_name, change_summary, if_match, expires_at)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?, case when ? then array[?]::text[] else null end, ?::jsonb, ?::jsonb, ?, ?, ?, ?)`,
    [
      hashSecret(token),
      rc.driveId,
      p.kind,
      p.credentialId,
      p.identityId,
      p.scope,
      path,
      contentType,
      maxBytes,
      input.labels !== undefined,
      input.labels !== undefined ? checkLabels(input.labels) : [],
      input.metadata !== undefined ? JSON.stringify(checkMetadata(input.metadata)) : null,
      input.source !== undefined ? JSON.stringify(checkSource(input.source)) : null,
      rc.actor,
      checkChangeSummary(input.changeSummary ?? null),
      input.ifMatch ?? null,
      expiresAt,
    ],
  );
  return {
    token,
    uploadUrl: `${config.http.baseUrl}/v0/upload/${token}`,
    path,
    contentType,
    maxBytes,
    expiresAt,
  };
}

async function findToken(app: AppContext, token: string): Promise<TokenRow> {
  const row = token.startsWith(UPLOAD_TOKEN_PREFIX)
    ? await one<TokenRow>(
        app.orm.em.fork(),
        `select t.*, t.expires_at <= now() as expired, d.deleted_at is not null as drive_deleted
         from upload_tokens t join drives d on d.id = t.drive_id where t.token_hash = ?`,
        [hashSecret(token)],
      )
    : undefined;
  if (!row || row.drive_deleted) throw new AppError('TOKEN_INVALID', 'unknown upload token, or its drive is deleted');
  if (row.consumed_at)
    throw new AppError('TOKEN_REPLAYED', 'this upload token was already used; mint a new one with upload_url');
  if (row.expired) throw new AppError('TOKEN_EXPIRED', 'this upload token expired; mint a new one with upload_url');
  return row;
}

const bytesLimit = (max: number) =>
  new AppError('BYTES_LIMIT', `upload body is over the ${max}-byte cap signed into the token`, { limit_bytes: max });

/**
 * PUT /v0/upload/{token}: every check before a byte is stored, then one transaction that spends the token and writes
 * the version.
 */
export async function uploadWithToken(
  app: AppContext,
  token: string,
  body: { contentType: string | undefined; stream: Readable; declaredBytes?: number; requestId: string },
): Promise<ArtifactRow> {
  const t = await findToken(app, token);
  if (normaliseType(body.contentType ?? '') !== normaliseType(t.content_type)) {
    throw new AppError('CONTENT_TYPE_MISMATCH', `Content-Type must be ${t.content_type}, as frozen in the token`, {
      expected: t.content_type,
    });
  }
  const maxBytes = Math.min(Number(t.max_bytes), app.config.limits.maxUploadBytes);
  if ((body.declaredBytes ?? 0) > maxBytes) throw bytesLimit(maxBytes);
  const principal: Principal = {
    driveId: t.drive_id,
    identityId: t.identity_id,
    scope: t.scope,
    kind: t.principal_kind,
    credentialId: t.credential_id,
    // Only a credential that may write mints upload tokens (upload_url, a write tool).
    readOnly: false,
  };
  const input = pendingWriteInput(t);
  await preflightPut(app, input);
  await chargeWriteOrRefuse(app, principal);

  const spooled = await spoolBody(body.stream, { maxBytes, memoryBytes: app.config.limits.uploadSpoolMemoryBytes });
  if (spooled.tooLarge) throw bytesLimit(maxBytes);
  try {
    const arrival = await prepareBlob(app, spooled, earlyQuota(app, t.drive_id));
    return await writeTransaction(app, async (w) => {
      const spent = await one(
        w.tx,
        `update upload_tokens set consumed_at = clock_timestamp() where token_hash = ? and consumed_at is null returning token_hash`,
        [t.token_hash],
      );
      if (!spent)
        throw new AppError('TOKEN_REPLAYED', 'this upload token was already used; mint a new one with upload_url');
      const row = await putStoredArtifact(app, w, input, spooled, arrival);
      await one(w.tx, `update upload_tokens set art_id = ?, version_number = ? where token_hash = ?`, [
        row.id,
        row.version_number,
        t.token_hash,
      ]);
      return row;
    });
  } finally {
    await spooled.dispose();
  }
}
