import type { EntityManager } from '@mikro-orm/postgresql';
import type { AppContext } from './context.js';
import { AppError } from '../lib/errors.js';
import type { Principal } from './request-context.js';
import { ASYNC_COMMIT } from '../db/sql.js';

/**
 * Fixed-window counters in PostgreSQL, so every API process enforces one budget. A hit is one
 * atomic upsert that only increments while under the limit: a refused hit is not counted.
 */
const HOUR_MS = 3600_000;
const DAY_MS = 24 * HOUR_MS;

export interface Window {
  start: Date;
  /** Epoch seconds at which the window ends. */
  resetS: number;
}

export function hourWindow(now = Date.now()): Window {
  const start = Math.floor(now / HOUR_MS) * HOUR_MS;
  return { start: new Date(start), resetS: (start + HOUR_MS) / 1000 };
}

/**
 * A calendar day's window (UTC), for the few counters that are daily (a sign-up's reset mail to a taken address). Its
 * buckets start with DAY_BUCKET_PREFIX, so the cleanup run keeps them for the whole day.
 */
export function dayWindow(now = Date.now()): Window {
  const start = Math.floor(now / DAY_MS) * DAY_MS;
  return { start: new Date(start), resetS: (start + DAY_MS) / 1000 };
}
const DAY_BUCKET_PREFIX = 'day:';

/** Seconds until the current window ends: a spent counter's Retry-After. */
export const windowRetryAfterS = () => Math.max(1, Math.ceil(hourWindow().resetS - Date.now() / 1000));

export interface HitResult {
  allowed: boolean;
  count: number;
  limit: number;
  remaining: number;
  resetS: number;
  retryAfterS: number;
}

async function hit(
  em: EntityManager,
  bucket: string,
  driveId: string | null,
  limit: number,
  w: Window = hourWindow(),
): Promise<HitResult> {
  const rows = await em.execute<{ count: number }[]>(
    `insert into rate_counters (bucket, window_start, drive_id, count) values (?, ?, ?, 1)
     on conflict (bucket, window_start) do update set count = rate_counters.count + 1
     where rate_counters.count < ?
     returning count`,
    [bucket, w.start, driveId, limit],
  );
  return resultOf(rows.length ? rows[0].count : null, limit, w);
}

/** A hit's outcome from the counter it returned (null: refused, the window is full). */
function resultOf(counted: number | string | null, limit: number, w: Window): HitResult {
  const allowed = counted !== null;
  const count = allowed ? Number(counted) : limit;
  return {
    allowed,
    count,
    limit,
    remaining: Math.max(0, limit - count),
    resetS: w.resetS,
    retryAfterS: Math.max(1, Math.ceil(w.resetS - Date.now() / 1000)),
  };
}

async function peek(em: EntityManager, bucket: string): Promise<number> {
  const rows = await em.execute<{ count: number }[]>(
    'select count from rate_counters where bucket = ? and window_start = ?',
    [bucket, hourWindow().start],
  );
  return rows.length ? Number(rows[0].count) : 0;
}

/**
 * A credential's write budget counter is `write:<credential id>`; its drive's is `drive-write:<drive id>` (credential-
 * state.ts reads both).
 */
export const WRITE_BUCKET_PREFIX = 'write:';
export const writeBucket = (credentialId: string) => `${WRITE_BUCKET_PREFIX}${credentialId}`;
export const DRIVE_WRITE_BUCKET_PREFIX = 'drive-write:';
export const driveWriteBucket = (driveId: string) => `${DRIVE_WRITE_BUCKET_PREFIX}${driveId}`;

export interface WriteLimits {
  perToken: number;
  perDrive: number;
}

export const writeLimitsOf = (app: AppContext): WriteLimits => ({
  perToken: app.config.limits.writeBudgetPerHour,
  perDrive: app.config.limits.writeBudgetPerDrivePerHour,
});

/** The 429 of a spent write budget, naming which one (the credential's or the drive's). */
export function writeBudgetSpent(r: HitResult, limits: WriteLimits): AppError {
  return rateLimited(
    `write budget of ${r.limit} per hour ${r.limit === limits.perToken ? 'for this credential' : 'for this drive'} is spent`,
    r.retryAfterS,
  );
}

/** Charges one write to both budgets, or refuses with 429 RATE_LIMITED (every door's writes). */
export async function chargeWriteOrRefuse(app: AppContext, principal: Principal): Promise<HitResult> {
  const limits = writeLimitsOf(app);
  const r = await chargeWrite(app, principal, limits);
  if (!r.allowed) throw writeBudgetSpent(r, limits);
  return r;
}

/** The budget headers' numbers for an authenticated credential, from the counts loaded with it. */
export const budgetStatusOf = (app: AppContext, state: { writesThisHour: number; driveWritesThisHour: number }) =>
  writeBudgetStatus({ token: state.writesThisHour, drive: state.driveWritesThisHour }, writeLimitsOf(app));

/** Counts a registration from this client IP (REGISTRATIONS_PER_IP_PER_HOUR); 429 over the limit. */
export async function chargeRegistration(app: AppContext, ip: string): Promise<void> {
  const limit = await hitThrottle(app.orm.em.fork(), 'register', ip, app.config.limits.registrationsPerIpPerHour);
  if (!limit.allowed) throw rateLimited('too many registrations from this address', limit.retryAfterS);
}

/**
 * Charges one write to the drive's and the credential's hourly budgets, both or neither, in one
 * statement: each counter only increments while under its limit, and the credential's only when
 * the drive's did (the drive row's lock orders a drive's writes). An API key's REST write is
 * charged by its lookup's own statement instead (authenticate's `chargeWrite`).
 */
export async function chargeWrite(app: AppContext, principal: Principal, limits: WriteLimits): Promise<HitResult> {
  const { credentialId, driveId } = principal;
  const w = hourWindow();
  const [r] = await app.orm.em.fork().execute<WriteCharge[]>(
    `with ${writeChargeSql({ driveBucket: '?', window: '?', driveId: '?', perDrive: '?', tokenBucket: '?', perToken: '?' })}
     select (select count from d) as drive, (select count from t) as token`,
    [
      driveWriteBucket(driveId),
      w.start,
      driveId,
      limits.perDrive,
      writeBucket(credentialId),
      w.start,
      driveId,
      limits.perToken,
    ],
  );
  return settleWriteCharge(app, driveId, r, limits);
}

/** What a write charge's statement returned: each counter's new count, null where it refused (or was not asked). */
export interface WriteCharge {
  drive: number | string | null;
  token: number | string | null;
}

/**
 * The CTEs `d` (the drive's counter) and `t` (the credential's) of a write charge, with the placeholders or expressions
 * of the caller's choice (`?` in the order drive bucket, window, drive, drive limit, token bucket, window, drive, token
 * limit). `from` and `when`: a FROM item both read and a condition for charging at all, so a statement can charge for
 * the credential it has just looked up (src/identity/credential-state.ts). The charge commits without waiting for its
 * WAL flush (ASYNC_COMMIT): a count lost in a crash is harmless, and the write it charges then waits on one flush, its
 * own.
 */
export function writeChargeSql(p: {
  driveBucket: string;
  window: string;
  driveId: string;
  perDrive: string;
  tokenBucket: string;
  perToken: string;
  from?: string;
  when?: string;
}): string {
  const upsert = (bucket: string, limit: string, from: string, when: string) =>
    `insert into rate_counters (bucket, window_start, drive_id, count) select ${bucket}, ${p.window}, ${p.driveId}, 1
       from ${from} where ${when}
     on conflict (bucket, window_start) do update set count = rate_counters.count + 1 where rate_counters.count < ${limit}
     returning count`;
  const from = p.from ? `, ${p.from}` : '';
  return `d as (${upsert(p.driveBucket, p.perDrive, `${ASYNC_COMMIT}${from}`, p.when ?? 'true')}),
    t as (${upsert(p.tokenBucket, p.perToken, p.from ?? '(select) as one', 'exists (select 1 from d)')})`;
}

/**
 * A write charge's outcome: refused by the drive's budget, or by the credential's (then the drive's increment is given
 * back by a second statement, the only path with two), else whichever budget has less left.
 */
export async function settleWriteCharge(
  app: AppContext,
  driveId: string,
  r: WriteCharge,
  limits: WriteLimits,
): Promise<HitResult> {
  const w = hourWindow();
  const drive = resultOf(r.drive, limits.perDrive, w);
  if (!drive.allowed) return drive;
  const token = resultOf(r.token, limits.perToken, w);
  if (!token.allowed) {
    await app.orm.em
      .fork()
      .execute('update rate_counters set count = count - 1 where bucket = ? and window_start = ?', [
        driveWriteBucket(driveId),
        w.start,
      ]);
    return token;
  }
  return token.remaining <= drive.remaining ? token : drive;
}

/** The budget headers' numbers from this hour's counts: whichever budget has less left. */
export function writeBudgetStatus(counts: { token: number; drive: number }, limits: WriteLimits): HitResult {
  const w = hourWindow();
  const token = { limit: limits.perToken, count: counts.token, remaining: Math.max(0, limits.perToken - counts.token) };
  const drive = { limit: limits.perDrive, count: counts.drive, remaining: Math.max(0, limits.perDrive - counts.drive) };
  const binding = token.remaining <= drive.remaining ? token : drive;
  return {
    allowed: binding.remaining > 0,
    ...binding,
    resetS: w.resetS,
    retryAfterS: Math.max(1, Math.ceil(w.resetS - Date.now() / 1000)),
  };
}

/** Writes charged this hour across every credential of the drive (usage report). */
export async function driveWritesThisHour(em: EntityManager, driveId: string): Promise<number> {
  return peek(em, driveWriteBucket(driveId));
}

/**
 * Throttles on doors that need no credential or guard a guessable secret, each a counter of its own
 * keyed by client IP, account or link: agent and MCP client registrations, sign-ups, failed sign-ins,
 * unknown claim codes (per IP and per account), wrong share-link passwords (per IP and per link),
 * verification mails (per account). Failures are counted once known; a door checks first.
 */
export type ThrottleKind =
  | 'register'
  | 'oauth_register'
  | 'signup'
  | 'login_failure'
  | 'login_failure_account'
  | 'login_failure_account_ip'
  | 'login_failure_device'
  | 'confirm_link_failure'
  | 'claim_code_miss'
  | 'claim_code_miss_account'
  | 'share_password_ip'
  | 'share_password_link'
  | 'verification_mail'
  | 'reset_mail'
  | 'signup_reset_mail';

export function hitThrottle(em: EntityManager, kind: ThrottleKind, key: string, limit: number) {
  return hit(em, `${kind}:${key}`, null, limit);
}

/** As hitThrottle, on a calendar day's window instead of an hour's. */
export function hitDailyThrottle(em: EntityManager, kind: ThrottleKind, key: string, limit: number) {
  return hit(em, `${DAY_BUCKET_PREFIX}${kind}:${key}`, null, limit, dayWindow());
}

/**
 * Reserve first, give back on success (issue 37): one attempt is taken on every counter of `checks` before the secret
 * is even compared, each increment atomic and only under its limit, so N concurrent guesses count N however they
 * interleave. Over any limit, what was taken is given back and the answer is 429. A correct guess gives its
 * attempts back with `giveBack`, so only failures stay counted. A check marked `soft` never refuses: over its limit the
 * attempt goes on uncounted there, and `softSpent` says so (the caller slows it down instead, issue 54).
 */
export async function reserveAttempts(
  em: EntityManager,
  checks: [ThrottleKind, string, number, 'soft'?][],
  message: string,
): Promise<{ giveBack(): Promise<void>; softSpent: boolean }> {
  const taken: string[] = [];
  let softSpent = false;
  const giveBack = async () => {
    const w = hourWindow();
    for (const bucket of taken.splice(0))
      await em.execute(
        'update rate_counters set count = greatest(0, count - 1) where bucket = ? and window_start = ?',
        [bucket, w.start],
      );
  };
  for (const [kind, key, limit, soft] of checks) {
    const r = await hitThrottle(em, kind, key, limit);
    if (r.allowed) taken.push(`${kind}:${key}`);
    else if (soft) softSpent = true;
    else {
      await giveBack();
      throw rateLimited(message, windowRetryAfterS());
    }
  }
  return { giveBack, softSpent };
}

/** Drops counters of windows that have ended (run by the cleanup schedule); returns how many went. */
export async function purgeEndedWindows(em: EntityManager): Promise<number> {
  const rows = await em.execute<{ bucket: string }[]>(
    `delete from rate_counters where window_start < ? and (bucket not like '${DAY_BUCKET_PREFIX}%' or window_start < ?)
     returning bucket`,
    [hourWindow().start, dayWindow().start],
  );
  return rows.length;
}

/** The 429 of every budget: `RATE_LIMITED`, with Retry-After and the same number in the envelope. */
export function rateLimited(message: string, retryAfterS: number) {
  return new AppError(
    'RATE_LIMITED',
    `${message}; retry after ${retryAfterS} s`,
    { retry_after: retryAfterS },
    { 'Retry-After': String(retryAfterS) },
  );
}
