import { hashSecret } from '../lib/secrets.js';
import type { PreparedStatements } from '../db/prepared.js';
import {
  DRIVE_WRITE_BUCKET_PREFIX,
  hourWindow,
  WRITE_BUCKET_PREFIX,
  writeBucket,
  writeChargeSql,
  type WriteCharge,
  type WriteLimits,
} from '../platform/rate-limits.js';

/**
 * What the bearer middleware needs for every request, in one round trip: whose drive it is,
 * whether that drive is soft-deleted, and how many writes the credential has charged this hour
 * (a read answers with the budget headers without a second query). Both run as prepared statements.
 */
export interface CredentialState {
  driveId: string;
  driveDeleted: boolean;
  writesThisHour: number;
  /** Writes charged this hour across every credential of the drive. */
  driveWritesThisHour: number;
}

const API_KEY_STATE = `select k.id as key_id, k.read_only, k.label, k.memory_prefix, k.drive_id, d.deleted_at is not null as drive_deleted,
         (select count from rate_counters where bucket = $3 || k.id and window_start = $1) as writes,
         (select count from rate_counters where bucket = $4 || d.id and window_start = $1) as drive_writes
    from api_keys k
    join drives d on d.id = k.drive_id
   where k.key_hash = $2 and k.revoked_at is null`;

/**
 * The key's lookup and its write's budget charge in one statement (one round trip less per write): the charge only
 * when the key may write there (not read-only; a deleted drive only where `$7` allows it), as the budget middleware
 * would after authentication. `writes` and `drive_writes` are the counts before it.
 */
const MAY_CHARGE = 'not k.read_only and (not k.drive_deleted or $7::boolean)';
const API_KEY_STATE_AND_CHARGE = `with k as (${API_KEY_STATE}), ${writeChargeSql({
  driveBucket: '$4 || k.drive_id',
  window: '$1',
  driveId: 'k.drive_id',
  perDrive: '$5',
  tokenBucket: '$3 || k.key_id',
  perToken: '$6',
  from: 'k',
  when: MAY_CHARGE,
})}
  select k.*, ${MAY_CHARGE} as charged, (select count from d) as charged_drive, (select count from t) as charged_token
    from k`;

interface ApiKeyRow {
  key_id: string;
  label: string | null;
  memory_prefix: string | null;
  read_only: boolean;
  drive_id: string;
  drive_deleted: boolean;
  writes: number | null;
  drive_writes: number | null;
  /** Whether API_KEY_STATE_AND_CHARGE charged, and the counts after: null where refused. */
  charged?: boolean;
  charged_drive?: number | null;
  charged_token?: number | null;
}

/** What an API key's lookup asks for besides the key: a write's budget charge (see API_KEY_STATE_AND_CHARGE). */
export interface ChargeAtLookup {
  limits: WriteLimits;
  allowDeletedDrive: boolean;
}

/**
 * A live (unrevoked) API key with its drive's state; undefined when unknown or revoked, or its drive is gone. With
 * `charge`, the same statement charges the write (`writeCharge`; absent when the key may not write).
 */
export async function apiKeyState(
  db: PreparedStatements,
  key: string,
  charge?: ChargeAtLookup,
): Promise<
  | (CredentialState & {
      keyId: string;
      label: string | null;
      memoryPrefix: string | null;
      readOnly: boolean;
      writeCharge?: WriteCharge;
    })
  | undefined
> {
  const params = [hourWindow().start, hashSecret(key), WRITE_BUCKET_PREFIX, DRIVE_WRITE_BUCKET_PREFIX];
  const [row] = charge
    ? await db.query<ApiKeyRow>('auth_api_key_charge', API_KEY_STATE_AND_CHARGE, [
        ...params,
        charge.limits.perDrive,
        charge.limits.perToken,
        charge.allowDeletedDrive,
      ])
    : await db.query<ApiKeyRow>('auth_api_key_ro', API_KEY_STATE, params);
  if (!row) return undefined;
  return {
    keyId: row.key_id,
    label: row.label,
    memoryPrefix: row.memory_prefix,
    readOnly: row.read_only,
    driveId: row.drive_id,
    driveDeleted: row.drive_deleted,
    writesThisHour: Number(row.writes ?? 0),
    driveWritesThisHour: Number(row.drive_writes ?? 0),
    ...(row.charged ? { writeCharge: { drive: row.charged_drive ?? null, token: row.charged_token ?? null } } : {}),
  };
}

/**
 * The state of a drive named by a verified token, with the credential's writes this hour; undefined
 * when the drive is gone. `preClaimIdentity`: the agent identity of a `pre_claim` token, whose
 * claim since (`identityClaimed`) retires every token minted before it.
 */
export async function tokenDriveState(
  db: PreparedStatements,
  driveId: string,
  credentialId: string,
  preClaimIdentity: string | null = null,
): Promise<(CredentialState & { identityClaimed: boolean }) | undefined> {
  const [row] = await db.query<{
    drive_deleted: boolean;
    writes: number | null;
    drive_writes: number | null;
    identity_claimed: boolean;
  }>(
    'auth_token_drive_claim',
    `select d.deleted_at is not null as drive_deleted,
            (select count from rate_counters where bucket = $1 and window_start = $2) as writes,
            (select count from rate_counters where bucket = $4 || d.id and window_start = $2) as drive_writes,
            exists (select 1 from agent_identities i where i.id = $5 and i.status = 'claimed') as identity_claimed
       from drives d where d.id = $3`,
    [writeBucket(credentialId), hourWindow().start, driveId, DRIVE_WRITE_BUCKET_PREFIX, preClaimIdentity ?? ''],
  );
  if (!row) return undefined;
  return {
    driveId,
    driveDeleted: row.drive_deleted,
    writesThisHour: Number(row.writes ?? 0),
    driveWritesThisHour: Number(row.drive_writes ?? 0),
    identityClaimed: row.identity_claimed,
  };
}
