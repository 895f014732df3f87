import type { AppContext } from '../context.js';
import { listUserDrives, type DriveRow } from '../drive/drives.js';
import { hitThrottle, throttleReached } from '../usage/rate-limits.js';
import { listApiKeys, mintApiKey, revokeApiKey } from './api-keys.js';
import { findPendingClaim, USER_CODE_RE, type PendingClaim } from './claims.js';
import { sendVerificationMail, type VerificationMailOutcome } from './email-verification.js';
import { signIn, signUp } from './users.js';

/**
 * The human side's operations (sign-up, sign-in, the dashboard's keys, the claim page's code
 * lookup), each with its own rules and throttles, so the web pages only render their answers.
 */

type Account = { id: string; email: string };

export type AccountSignUp =
  | { ok: true; user: Account; driveId: string | null; mail: VerificationMailOutcome }
  | { ok: false; reason: 'invalid_email' | 'weak_password' | 'exists' };

/** Creates the account and mails its verification link (a failed send is reported, the account stays; the dashboard resends). */
export async function signUpAccount(app: AppContext, email: string, password: string): Promise<AccountSignUp> {
  const em = app.orm.em.fork();
  const result = await signUp(em, email, password);
  if (!result.ok) return result;
  const [drive] = await listUserDrives(em, result.user.id);
  const mail = await sendVerificationMail(app, result.user.id);
  return { ok: true, user: result.user, driveId: drive?.id ?? null, mail };
}

export type AccountSignIn = { ok: true; user: Account; driveId: string | null } | { ok: false; reason: 'throttled' | 'wrong' };

/** Failed sign-ins are limited per client IP (LOGIN_FAILURES_PER_IP_PER_HOUR). */
export async function signInAccount(app: AppContext, email: string, password: string, ip: string): Promise<AccountSignIn> {
  const em = app.orm.em.fork();
  const limit = app.config.limits.loginFailuresPerIpPerHour;
  if (await throttleReached(em, 'login_failure', ip, limit)) return { ok: false, reason: 'throttled' };
  const user = await signIn(em, email, password);
  if (!user) {
    await hitThrottle(em, 'login_failure', ip, limit);
    return { ok: false, reason: 'wrong' };
  }
  const [drive] = await listUserDrives(em, user.id);
  return { ok: true, user, driveId: drive?.id ?? null };
}

/** The drives this web account claimed, each with its API keys. */
export async function ownedDrivesWithKeys(app: AppContext, userId: string) {
  const em = app.orm.em.fork();
  const drives = await listUserDrives(em, userId);
  return Promise.all(drives.map(async (drive) => ({ drive, keys: await listApiKeys(em, drive.id) })));
}

async function ownsDrive(app: AppContext, userId: string, driveId: string): Promise<boolean> {
  const owned: DriveRow[] = await listUserDrives(app.orm.em.fork(), userId);
  return owned.some((d) => d.id === driveId);
}

/** Mints a key on a drive the account owns; null when it does not own it. The key is shown once. */
export async function mintOwnerApiKey(app: AppContext, userId: string, driveId: string, label: string | null) {
  if (!(await ownsDrive(app, userId, driveId))) return null;
  return mintApiKey(app.orm.em.fork(), driveId, label);
}

/** Revokes a live key of a drive the account owns: 'not_owner', 'no_such_key' or 'revoked'. */
export async function revokeOwnerApiKey(app: AppContext, userId: string, driveId: string, keyId: string) {
  if (!(await ownsDrive(app, userId, driveId))) return 'not_owner' as const;
  return (await revokeApiKey(app.orm.em.fork(), driveId, keyId)) ? ('revoked' as const) : ('no_such_key' as const);
}

/** The pending claim behind a user code; unknown codes count per IP against the sign-in failure limit. */
export async function lookupClaimCode(app: AppContext, code: string, ip: string): Promise<PendingClaim | 'throttled' | null> {
  const em = app.orm.em.fork();
  const limit = app.config.limits.loginFailuresPerIpPerHour;
  if (await throttleReached(em, 'claim_code_miss', ip, limit)) return 'throttled';
  const pending = USER_CODE_RE.test(code) ? await findPendingClaim(em, code) : null;
  if (!pending) await hitThrottle(em, 'claim_code_miss', ip, limit);
  return pending;
}
