import type { AppContext } from '../platform/context.js';
import { listUserDrives, type DriveRow } from '../drives/drives.js';
import { hitThrottle, rateLimited, reserveAttempts, type ThrottleKind } from '../platform/rate-limits.js';
import { listApiKeys, mintApiKey, revokeApiKey } from './api-keys.js';
import { decideClaim, findPendingClaim, USER_CODE_RE, type DecideResult, type PendingClaim } from './claims.js';
import { sendVerificationMail, type VerificationMailOutcome } from './email-verification.js';
import { signIn, signUp } from './users.js';
import { requestPasswordLink } from './password-reset.js';

/**
 * The human side's operations (sign-up, sign-in, the dashboard's keys, the claim page's code
 * lookup), each with its own rules and throttles, so the web pages only render their answers.
 */

type Account = { id: string; email: string };

export type AccountSignUp =
  | { ok: true; user: Account; driveId: string | null; mail: VerificationMailOutcome }
  | { ok: false; reason: 'invalid_email' | 'weak_password' }
  /** The address has an account: a link to set its password went to the address (nobody is signed in). */
  | { ok: false; reason: 'check_mail' };

/**
 * Creates the account and mails its verification link (a failed send is reported, the account
 * stays; the dashboard resends). Every attempt counts per client IP (SIGNUPS_PER_IP_PER_HOUR: each
 * costs an scrypt and may send a mail); over it, 429 RATE_LIMITED.
 */
export async function signUpAccount(
  app: AppContext,
  email: string,
  password: string,
  ip: string,
): Promise<AccountSignUp> {
  const em = app.orm.em.fork();
  const counted = await hitThrottle(em, 'signup', ip, app.config.limits.signupsPerIpPerHour);
  if (!counted.allowed) throw rateLimited('too many sign-ups from this address', counted.retryAfterS);
  const result = await signUp(em, email, password);
  if (!result.ok && result.reason === 'exists') {
    // Never 'exists': the mailbox's owner gets a link to set the password (issue 37), and the answer says only that.
    await requestPasswordLink(app, email, ip, false);
    return { ok: false, reason: 'check_mail' };
  }
  if (!result.ok) return { ok: false, reason: result.reason as 'invalid_email' | 'weak_password' };
  const [drive] = await listUserDrives(em, result.user.id);
  const mail = await sendVerificationMail(app, result.user.id);
  return { ok: true, user: result.user, driveId: drive?.id ?? null, mail };
}

export type AccountSignIn = { ok: true; user: Account; driveId: string | null } | { ok: false; reason: 'wrong' };

/**
 * Failed sign-ins are limited per client IP and per account address (LOGIN_FAILURES_PER_IP_PER_HOUR each; the
 * address's counter exists whether or not it has an account, so the throttle reveals nothing); over either, 429
 * RATE_LIMITED. The attempt is reserved before the password is compared and given back when it matches.
 */
export async function signInAccount(
  app: AppContext,
  email: string,
  password: string,
  ip: string,
): Promise<AccountSignIn> {
  const em = app.orm.em.fork();
  const limit = app.config.limits.loginFailuresPerIpPerHour;
  const checks: [ThrottleKind, string, number][] = [
    ['login_failure', ip, limit],
    ['login_failure_account', email.trim().toLowerCase().slice(0, 320), limit],
  ];
  const attempt = await reserveAttempts(em, checks, 'too many failed sign-ins from this address or for this account');
  const user = await signIn(em, email, password);
  if (!user) return { ok: false, reason: 'wrong' };
  await attempt.giveBack();
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

/** Mints a key (read-only if asked) on a drive the account owns; null when it does not own it. Shown once. */
export async function mintOwnerApiKey(
  app: AppContext,
  userId: string,
  driveId: string,
  label: string | null,
  readOnly = false,
) {
  if (!(await ownsDrive(app, userId, driveId))) return null;
  return mintApiKey(app.orm.em.fork(), driveId, label, readOnly);
}

/** Revokes a live key of a drive the account owns: 'not_owner', 'no_such_key' or 'revoked'. */
export async function revokeOwnerApiKey(app: AppContext, userId: string, driveId: string, keyId: string) {
  if (!(await ownsDrive(app, userId, driveId))) return 'not_owner' as const;
  return (await revokeApiKey(app.orm.em.fork(), driveId, keyId)) ? ('revoked' as const) : ('no_such_key' as const);
}

/**
 * Claim codes are guessable secrets: an unknown, expired or spent code, looked up (GET /claim) or
 * decided (POST /claim), counts per client IP and per account, each against
 * LOGIN_FAILURES_PER_IP_PER_HOUR; over either, 429 RATE_LIMITED before the code is even looked at.
 */
function claimCodeThrottles(app: AppContext, ip: string, userId: string): [ThrottleKind, string, number][] {
  const limit = app.config.limits.loginFailuresPerIpPerHour;
  return [
    ['claim_code_miss', ip, limit],
    ['claim_code_miss_account', userId, limit],
  ];
}

const reserveGuess = (app: AppContext, checks: [ThrottleKind, string, number][]) =>
  reserveAttempts(app.orm.em.fork(), checks, 'too many unknown claim codes from this address or account');

/** The pending claim behind a user code (GET /claim), or null. */
export async function lookupClaimCode(
  app: AppContext,
  code: string,
  ip: string,
  userId: string,
): Promise<PendingClaim | null> {
  const attempt = await reserveGuess(app, claimCodeThrottles(app, ip, userId));
  const pending = USER_CODE_RE.test(code) ? await findPendingClaim(app.orm.em.fork(), code) : null;
  if (pending) await attempt.giveBack();
  return pending;
}

/** The human's decision on a code (POST /claim), throttled like the lookup. */
export async function decideClaimCode(
  app: AppContext,
  code: string,
  decision: 'approve' | 'decline',
  user: { id: string; email: string },
  ip: string,
): Promise<{ result: DecideResult; driveId?: string }> {
  const attempt = await reserveGuess(app, claimCodeThrottles(app, ip, user.id));
  const outcome = await decideClaim(app, code, decision, user);
  if (outcome.result !== 'not_pending') await attempt.giveBack();
  return outcome;
}
