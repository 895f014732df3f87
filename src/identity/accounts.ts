import type { AppContext } from '../platform/context.js';
import { listUserDrives, type DriveRow } from '../drives/drives.js';
import { hitThrottle, rateLimited, reserveAttempts, type ThrottleKind } from '../platform/rate-limits.js';
import { mailInBackground } from '../mail/mailer.js';
import { listApiKeys, mintApiKey, revokeApiKey } from './api-keys.js';
import { decideClaim, findPendingClaim, USER_CODE_RE, type DecideResult, type PendingClaim } from './claims.js';
import { confirmEmail, linkAccount, sendVerificationMail } from './email-verification.js';
import { signIn, signUp } from './users.js';
import { mintDeviceToken, reserveSignIn } from './sign-in-guard.js';
import { hashSecret } from '../lib/secrets.js';
import { requestPasswordLink } from './password-reset.js';

/**
 * The human side's operations (sign-up, sign-in, the dashboard's keys, the claim page's code
 * lookup), each with its own rules and throttles, so the web pages only render their answers.
 */

type Account = { id: string; email: string };

/**
 * A sign-up's answer is the same whether or not the address has an account (issue 37): the person is told to open
 * the link mailed to it. A new address gets its account (unconfirmed) and a link that confirms it and signs in; a taken
 * one gets a link to set the password. Only bad input is answered otherwise.
 */
export type AccountSignUp = { ok: true } | { ok: false; reason: 'invalid_email' | 'weak_password' };

/**
 * Every attempt counts per client IP (SIGNUPS_PER_IP_PER_HOUR: each costs an scrypt and may send a mail); over it,
 * 429 RATE_LIMITED. Both outcomes hash a password and try one insert before answering; the mail (a confirmation, or
 * for a taken address at most one password link a day) goes out after the answer, so they cost alike. `returnTo` (a
 * same-site path) rides in the confirmation link, so the person lands where they were going (a claim, an OAuth
 * consent).
 */
export async function signUpAccount(
  app: AppContext,
  input: { email: string; password: string; ip: string; returnTo: string },
): Promise<AccountSignUp> {
  const em = app.orm.em.fork();
  const counted = await hitThrottle(em, 'signup', input.ip, app.config.limits.signupsPerIpPerHour);
  if (!counted.allowed) throw rateLimited('too many sign-ups from this address', counted.retryAfterS);
  const result = await signUp(em, input.email, input.password);
  // Either mail is sent after the answer (the same time whether the address was taken or not, issue 54).
  if (result.ok)
    mailInBackground(app, 'verification mail', () => sendVerificationMail(app, result.user.id, input.returnTo));
  else if (result.reason === 'exists') await requestPasswordLink(app, input.email, input.ip, 'signup');
  else return { ok: false, reason: result.reason };
  return { ok: true };
}

export type AccountSignIn =
  { ok: true; user: Account; driveId: string | null; device?: string } | { ok: false; reason: 'wrong' };

/**
 * Failed sign-ins are counted per client IP, per account and address, and per account (src/identity/sign-in-guard.ts:
 * a guesser's address is refused, the account is only slowed, a browser that signed in before passes). The attempt is
 * reserved before the password is compared and given back when it matches; a success returns a fresh known-device
 * token for the browser. A password signs in only once the address is confirmed (the mailed link does that): else
 * whoever signed up could learn, by signing in, that the address had no account before.
 */
export async function signInAccount(
  app: AppContext,
  input: { email: string; password: string; ip: string; device?: string },
): Promise<AccountSignIn> {
  const em = app.orm.em.fork();
  const attempt = await reserveSignIn(app, input.email, input.ip, input.device);
  const user = await signIn(em, input.email, input.password);
  if (!user?.emailVerifiedAt) return { ok: false, reason: 'wrong' };
  await attempt.giveBack();
  const [drive] = await listUserDrives(em, user.id);
  return { ok: true, user, driveId: drive?.id ?? null, device: mintDeviceToken(app, user.email) };
}

/**
 * The mailed confirmation link, opened by someone not signed in: it confirms the address and signs in when the
 * password is the one chosen at sign-up (so the mailbox's owner following a link someone else asked for with their
 * address confirms nobody; they take the address back with "forgot password"). Wrong passwords count as failed
 * sign-ins of the account.
 */
export async function confirmAndSignIn(
  app: AppContext,
  input: { token: string; password: string },
): Promise<AccountSignIn> {
  const em = app.orm.em.fork();
  const owner = await linkAccount(app, input.token);
  if (!owner) return { ok: false, reason: 'wrong' };
  // Only the link's holder can guess here, so the link's own counter is the one that counts (not the account's,
  // which anyone who knows the address can fill).
  const attempt = await reserveAttempts(
    em,
    [['confirm_link_failure', hashSecret(input.token), app.config.limits.loginFailuresPerIpPerHour]],
    'too many failed sign-ins with this link',
  );
  const user = await signIn(em, owner.email, input.password);
  if (!user || user.id !== owner.id || (await confirmEmail(app, user.id, input.token)) !== 'verified')
    return { ok: false, reason: 'wrong' };
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

/**
 * Mints a key (read-only if asked, with its memory prefix if given) on a drive the account owns; null when it does not
 * own it. Shown once.
 */
export async function mintOwnerApiKey(
  app: AppContext,
  userId: string,
  driveId: string,
  label: string | null,
  opts: { readOnly?: boolean; memoryPrefix?: string | null } = {},
) {
  if (!(await ownsDrive(app, userId, driveId))) return null;
  return mintApiKey(app.orm.em.fork(), driveId, label, opts.readOnly ?? false, opts.memoryPrefix ?? null);
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
