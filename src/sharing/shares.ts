import { createHash, createHmac, randomBytes } from 'node:crypto';
import { safeEqual } from '../lib/secrets.js';
import type { AppContext } from '../platform/context.js';
import { AppError } from '../lib/errors.js';
import { newId } from '../lib/ids.js';
import type { RequestContext } from '../platform/request-context.js';
import type { Timestamp } from '../lib/time.js';
import type { ArtifactRow } from '../records/artifact-records.js';
import { EventAction } from '../files/events.js';
import { writeTransaction } from '../files/write-transaction.js';
import { hashPassword, verifyPassword } from '../lib/passwords.js';
import { reserveAttempts, type ThrottleKind } from '../platform/rate-limits.js';
import { one, rows, type Db } from '../db/sql.js';
import {
  authorize,
  authorizeThrough,
  roleRank,
  type Capability,
  type FolderRef,
  type Role,
} from '../access/authorize.js';
import { actingCredential } from './grants.js';
import { authorizeTarget, resolveResource, resolveTarget, resourceOf, targetColumns } from './resources.js';

/**
 * Share links (spec 2.8, 3.7, 4.6): a secret key that gives exactly its role on exactly its
 * resource to whoever holds it. The key is returned once (mint, rotate) and stored as SHA-256;
 * an optional password is hashed with scrypt (src/identity/users.ts).
 */
export const SHARE_ROLES = ['viewer', 'commenter', 'editor'] as const;
export type ShareRole = (typeof SHARE_ROLES)[number];
export const SHARE_KEY_PREFIX = 'shk_';
/** Default lifetime of a link an agent mints without expires_in (a human's API key gets none). */
export const AGENT_SHARE_DEFAULT_TTL_S = 7 * 86400;
export const SHARE_PASSWORD_MAX = 1024;
export const SHARE_LABEL_MAX = 200;

export interface ShareRow {
  id: string;
  drive_id: string;
  art_id: string | null;
  fld_id: string | null;
  role: ShareRole;
  key_hash: string;
  password_hash: string | null;
  label: string | null;
  created_by_type: string;
  created_by_id: string;
  created_at: Timestamp;
  expires_at: Timestamp | null;
  rotated_at: Timestamp | null;
  revoked_at: Timestamp | null;
  last_accessed_at: Timestamp | null;
  access_count: number;
}

const LIVE_SHARE = `s.revoked_at is null and (s.expires_at is null or s.expires_at > clock_timestamp())`;
const shareNotFound = () => new AppError('NOT_FOUND', 'no live share link with this id');
const newKey = () => `${SHARE_KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
export const hashShareKey = (key: string) => createHash('sha256').update(key).digest('hex');

/** POST /v0/shares: needs can_share; the link's role never exceeds the minter's own. Returns the key once. */
export async function mintShare(
  rc: RequestContext,
  input: {
    resource: string;
    role?: ShareRole;
    expiresIn?: number | null;
    password?: string | null;
    label?: string | null;
  },
): Promise<{ share: ShareRow; key: string }> {
  const role = input.role ?? 'viewer';
  const target = await resolveTarget(rc, input.resource);
  const access = await authorizeTarget(rc, target, 'can_share');
  if (roleRank(role) > roleRank(access.role))
    throw new AppError('INVALID_ROLE', `a ${access.role} cannot mint a ${role} link`);
  const expiresIn =
    input.expiresIn !== undefined ? input.expiresIn : rc.principal.identityId ? AGENT_SHARE_DEFAULT_TTL_S : null;
  const passwordHash = input.password ? await hashPassword(input.password) : null;
  const key = newKey();
  const by = actingCredential(rc);
  const share = await writeTransaction(rc.app, async (w) => {
    const { artId, fldId } = await targetColumns(w, rc, target, access);
    const row = (await one<ShareRow>(
      w.tx,
      `insert into shares (id, drive_id, art_id, fld_id, role, key_hash, password_hash, label, created_by_type,
         created_by_id, expires_at)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, case when ?::int is null then null else clock_timestamp() + make_interval(secs => ?::int) end) returning *`,
      [
        newId('shr'),
        access.driveId,
        artId,
        fldId,
        role,
        hashShareKey(key),
        passwordHash,
        input.label?.trim() || null,
        by.type,
        by.id,
        expiresIn,
        expiresIn,
      ],
    ))!;
    await w.event({
      driveId: row.drive_id,
      artId: row.art_id,
      fldId: row.fld_id,
      action: EventAction.shareCreated,
      actor: rc.actor,
      metadata: { shr_id: row.id, role, has_password: passwordHash !== null, expires_at: row.expires_at },
    });
    return row;
  });
  return { share, key };
}

/** GET /v0/shares?resource=: needs can_manage; live links on exactly this resource, never their keys. */
export async function listShares(rc: RequestContext, resource: string): Promise<ShareRow[]> {
  const access = await authorize(rc, await resolveResource(rc, resource), 'can_manage');
  return rows<ShareRow>(
    rc.app.orm.em.fork(),
    `select s.* from shares s where coalesce(s.art_id, s.fld_id) = ? and ${LIVE_SHARE} order by s.created_at, s.id`,
    [access.artifact?.id ?? access.folder?.id],
  );
}

async function liveShare(db: Db, shrId: string, lock = false): Promise<ShareRow> {
  const s = await one<ShareRow>(
    db,
    `select s.* from shares s where s.id = ? and ${LIVE_SHARE}${lock ? ' for update' : ''}`,
    [shrId],
  );
  if (!s) throw shareNotFound();
  return s;
}

const authorizeOnShare = (rc: RequestContext, s: ShareRow, capability: Capability) =>
  authorizeThrough(rc, resourceOf(s), capability, shareNotFound);

/** DELETE /v0/shares/{shr_id}: needs can_manage; the key is dead at once. */
export async function revokeShare(rc: RequestContext, shrId: string): Promise<ShareRow> {
  await authorizeOnShare(rc, await liveShare(rc.app.orm.em.fork(), shrId), 'can_manage');
  return writeTransaction(rc.app, async (w) => {
    const s = await liveShare(w.tx, shrId, true);
    const row = (await one<ShareRow>(
      w.tx,
      `update shares set revoked_at = clock_timestamp() where id = ? returning *`,
      [s.id],
    ))!;
    await w.event({
      driveId: row.drive_id,
      artId: row.art_id,
      fldId: row.fld_id,
      action: EventAction.shareRevoked,
      actor: rc.actor,
      metadata: { shr_id: row.id },
    });
    return row;
  });
}

/** POST /v0/shares/{shr_id}/rotate: needs can_share; the old key is dead at once, the new one returned once. */
export async function rotateShare(rc: RequestContext, shrId: string): Promise<{ share: ShareRow; key: string }> {
  await authorizeOnShare(rc, await liveShare(rc.app.orm.em.fork(), shrId), 'can_share');
  const key = newKey();
  const share = await writeTransaction(rc.app, async (w) => {
    const s = await liveShare(w.tx, shrId, true);
    const row = (await one<ShareRow>(
      w.tx,
      `update shares set key_hash = ?, rotated_at = clock_timestamp() where id = ? returning *`,
      [hashShareKey(key), s.id],
    ))!;
    await w.event({
      driveId: row.drive_id,
      artId: row.art_id,
      fldId: row.fld_id,
      action: EventAction.shareRotated,
      actor: rc.actor,
      metadata: { shr_id: row.id },
    });
    return row;
  });
  return { share, key };
}

export interface Redemption {
  share: ShareRow;
  /**
   * For a password link opened with its password (or a live unlock): a token that stands for the password on this
   * link for SHARE_UNLOCK_TTL_S, so its raw bytes and download need the password once, not on every request. It dies
   * with the key (rotation) and with the password.
   */
  unlock?: string;
  role: ShareRole;
  driveId: string;
  artifact?: ArtifactRow;
  folder?: FolderRef;
}

/**
 * Redeeming a key (the viewer's `/s/{share_key}`): exactly the link's role on exactly its resource,
 * while the link is live (not revoked, rotated away or expired), its drive live and its resource
 * live. Anything else is 404 NOT_FOUND; a password-protected link without the right password is
 * 401 SHARE_PASSWORD_REQUIRED and tells nothing of the resource. Each redemption is counted.
 * Passwords are guessable: a wrong one counts against the link and the client IP
 * (SHARE_PASSWORD_FAILURES_PER_LINK_PER_HOUR, …_PER_IP_PER_HOUR); over either, a password is not
 * even checked: 429 RATE_LIMITED (the link's holders wait too, until the hour ends).
 */
export async function redeemShare(
  app: AppContext,
  key: string,
  password?: string | null,
  ip = 'internal',
  unlockToken?: string,
): Promise<Redemption> {
  const db = app.orm.em.fork();
  const dead = () => new AppError('NOT_FOUND', 'no live share link for this key');
  if (!key.startsWith(SHARE_KEY_PREFIX) || key.length > 128) throw dead();
  const s = await one<ShareRow>(
    db,
    `select s.* from shares s join drives d on d.id = s.drive_id and d.deleted_at is null where s.key_hash = ? and ${LIVE_SHARE}`,
    [hashShareKey(key)],
  );
  if (!s) throw dead();
  let unlock: string | undefined;
  if (s.password_hash !== null) {
    if (!unlockToken || !unlockValid(app, s, unlockToken)) await checkSharePassword(app, s, password, ip);
    unlock = mintUnlock(app, s);
  }
  const artifact = s.art_id
    ? await one<ArtifactRow>(db, `select * from artifacts where id = ? and deleted_at is null`, [s.art_id])
    : undefined;
  const folder = s.fld_id
    ? await one<FolderRef>(
        db,
        `select id, drive_id, path, inherit_grants from folders where id = ? and deleted_at is null`,
        [s.fld_id],
      )
    : undefined;
  if (!artifact && !folder) throw dead();
  // Counted only while the key is still the live one (a rotation racing this read wins).
  const counted = await rows(
    db,
    `update shares s set access_count = access_count + 1, last_accessed_at = clock_timestamp() where s.id = ? and s.key_hash = ? and ${LIVE_SHARE} returning id`,
    [s.id, hashShareKey(key)],
  );
  if (!counted.length) throw dead();
  return { share: s, role: s.role, driveId: s.drive_id, artifact, folder, unlock };
}

export const SHARE_UNLOCK_TTL_S = 3600;

function unlockMac(app: AppContext, s: ShareRow, exp: number): string | undefined {
  const secret = app.config.secrets.sessionSecret;
  if (!secret) return undefined;
  return createHmac('sha256', secret)
    .update(`share-unlock:${s.id}:${s.key_hash}:${s.password_hash}:${exp}`)
    .digest('base64url');
}

function mintUnlock(app: AppContext, s: ShareRow): string | undefined {
  const exp = Math.floor(Date.now() / 1000) + SHARE_UNLOCK_TTL_S;
  const mac = unlockMac(app, s, exp);
  return mac && `${exp}.${mac}`;
}

function unlockValid(app: AppContext, s: ShareRow, token: string): boolean {
  const [exp, mac] = token.split('.');
  const expected =
    /^\d{1,12}$/.test(exp ?? '') && Number(exp) * 1000 > Date.now() ? unlockMac(app, s, Number(exp)) : undefined;
  return !!expected && !!mac && safeEqual(mac, expected);
}

async function checkSharePassword(
  app: AppContext,
  s: ShareRow,
  password: string | null | undefined,
  ip: string,
): Promise<void> {
  if (typeof password !== 'string') throw new AppError('SHARE_PASSWORD_REQUIRED', 'this link needs its password');
  const { sharePasswordFailuresPerLinkPerHour: perLink, sharePasswordFailuresPerIpPerHour: perIp } = app.config.limits;
  const checks: [ThrottleKind, string, number][] = [
    ['share_password_link', s.id, perLink],
    ['share_password_ip', ip, perIp],
  ];
  const db = app.orm.em.fork();
  const attempt = await reserveAttempts(db, checks, 'too many wrong passwords for this link or from this address');
  if (password.length <= SHARE_PASSWORD_MAX && (await verifyPassword(password, s.password_hash!)))
    return attempt.giveBack();
  throw new AppError('SHARE_PASSWORD_REQUIRED', 'this link needs its password');
}

export type { Role };
