import type { EntityManager } from '@mikro-orm/postgresql';
import type { AppContext } from '../context.js';
import { AppError } from '../errors.js';
import type { Principal } from '../request-context.js';

/**
 * Fixed-window counters in PostgreSQL, so every API process enforces one budget. A hit is one
 * atomic upsert that only increments while under the limit: a refused hit is not counted.
 */
const HOUR_MS = 3600_000;

export interface Window {
  start: Date;
  /** Epoch seconds at which the window ends. */
  resetS: number;
}

export function hourWindow(now = Date.now()): Window {
  const start = Math.floor(now / HOUR_MS) * HOUR_MS;
  return { start: new Date(start), resetS: (start + HOUR_MS) / 1000 };
}

export interface HitResult {
  allowed: boolean;
  count: number;
  limit: number;
  remaining: number;
  resetS: number;
  retryAfterS: number;
}

async function hit(em: EntityManager, bucket: string, driveId: string | null, limit: number): Promise<HitResult> {
  const w = hourWindow();
  const rows = await em.execute<{ count: number }[]>(
    `insert into rate_counters (bucket, window_start, drive_id, count) values (?, ?, ?, 1)
     on conflict (bucket, window_start) do update set count = rate_counters.count + 1
     where rate_counters.count < ?
     returning count`,
    [bucket, w.start, driveId, limit],
  );
  const allowed = rows.length > 0;
  const count = allowed ? Number(rows[0].count) : limit;
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

/** A credential's write budget counter is `write:<credential id>` (credential-state.ts reads it by that prefix). */
export const WRITE_BUCKET_PREFIX = 'write:';
export const writeBucket = (credentialId: string) => `${WRITE_BUCKET_PREFIX}${credentialId}`;

/** Charges one write to a credential's hourly budget. */
export function chargeWrite(app: AppContext, principal: Principal, limit: number) {
  return hit(app.orm.em.fork(), writeBucket(principal.credentialId), principal.driveId, limit);
}

/** Counts a registration from this client IP (REGISTRATIONS_PER_IP_PER_HOUR); 429 over the limit. */
export async function chargeRegistration(app: AppContext, ip: string): Promise<void> {
  const limit = await hitIpLimit(app.orm.em.fork(), 'register', ip, app.config.limits.registrationsPerIpPerHour);
  if (!limit.allowed) throw rateLimited('too many registrations from this address', limit.retryAfterS);
}

/** The budget headers' numbers for a credential that has charged `count` writes this hour. */
export function writeBudgetStatus(count: number, limit: number): HitResult {
  const w = hourWindow();
  return {
    allowed: count < limit,
    count,
    limit,
    remaining: Math.max(0, limit - count),
    resetS: w.resetS,
    retryAfterS: Math.max(1, Math.ceil(w.resetS - Date.now() / 1000)),
  };
}

/** Writes charged this hour across every credential of the drive (usage report). */
export async function driveWritesThisHour(em: EntityManager, driveId: string): Promise<number> {
  const rows = await em.execute<{ total: string | null }[]>(
    `select sum(count) as total from rate_counters where drive_id = ? and window_start = ? and bucket like 'write:%'`,
    [driveId, hourWindow().start],
  );
  return Number(rows[0]?.total ?? 0);
}

/** Per-client-IP limits: registrations, failed sign-ins, unknown claim codes. */
export type IpLimitKind = 'register' | 'login_failure' | 'claim_code_miss';

export function hitIpLimit(em: EntityManager, kind: IpLimitKind, ip: string, limit: number) {
  return hit(em, `${kind}:${ip}`, null, limit);
}

export async function ipLimitReached(em: EntityManager, kind: IpLimitKind, ip: string, limit: number) {
  return (await peek(em, `${kind}:${ip}`)) >= limit;
}

/** Drops counters of windows that have ended (run by the cleanup schedule); returns how many went. */
export async function purgeEndedWindows(em: EntityManager): Promise<number> {
  const rows = await em.execute<{ bucket: string }[]>('delete from rate_counters where window_start < ? returning bucket', [hourWindow().start]);
  return rows.length;
}

/** The 429 of every budget: `RATE_LIMITED`, with Retry-After and the same number in the envelope. */
export function rateLimited(message: string, retryAfterS: number) {
  return new AppError('RATE_LIMITED', `${message}; retry after ${retryAfterS} s`, { retry_after: retryAfterS }, { 'Retry-After': String(retryAfterS) });
}
