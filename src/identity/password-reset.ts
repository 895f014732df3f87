import type { AppContext } from '../platform/context.js';
import { one, rows, transaction } from '../db/sql.js';
import { mailInBackground, sendMail } from '../mail/mailer.js';
import { hitDailyThrottle, hitThrottle, rateLimited } from '../platform/rate-limits.js';
import { hashSecret, newSecret } from '../lib/secrets.js';
import { newId } from '../lib/ids.js';
import { hashPassword } from '../lib/passwords.js';
import { EMAIL_RE, PASSWORD_MAX, PASSWORD_MIN } from './users.js';
import { revokeAllWebSessions } from './web-sessions.js';
import { listUserDrives } from '../drives/drives.js';

/**
 * Taking an address back (issue 37, docs/decisions/identity.md → Reclaiming an address): whoever controls a
 * mailbox can always reach the account of its address. Sign-up with a taken address and "forgot password" both
 * mail a single-use link (`{web_url}/auth/reset?token=adrs_…`, EMAIL_VERIFICATION_TTL_S); following it proves the
 * mailbox and sets a new password. An account whose address was never confirmed (a squatter's, perhaps) is
 * retired, not taken over: its address is released, every session of it ends, and a fresh verified account
 * takes the address. A confirmed account keeps its drives; its sessions end. The request's answer is the same
 * whether or not the address has an account.
 */
export const RESET_TOKEN_PREFIX = 'adrs_';

/**
 * Who asked for the link: the owner ("forgot password", its own hourly budget per account) or a sign-up with a taken
 * address (at most one such mail a day per account, SIGNUP_RESET_MAILS_PER_DAY), so nobody who signs up with an
 * address can spend the mails its owner asks for (issue 54, finding 3).
 */
export type LinkOrigin = 'owner' | 'signup';
const SIGNUP_RESET_MAILS_PER_DAY = 1;

/**
 * Mails a reset link when `email` has an account; the caller answers the same either way. The owner's request counts
 * against the per-IP sign-up limit here (a sign-up has counted already); the rest runs after the answer.
 */
export async function requestPasswordLink(
  app: AppContext,
  email: string,
  ip: string,
  origin: LinkOrigin = 'owner',
): Promise<void> {
  if (origin === 'owner') {
    const counted = await hitThrottle(app.orm.em.fork(), 'signup', ip, app.config.limits.signupsPerIpPerHour);
    if (!counted.allowed) throw rateLimited('too many requests from this address', counted.retryAfterS);
  }
  mailInBackground(app, 'password link', () => mailPasswordLink(app, email, origin));
}

/** Charges the link's budget for `origin`; false when it is spent. */
async function chargeLinkMail(app: AppContext, userId: string, origin: LinkOrigin): Promise<boolean> {
  const em = app.orm.em.fork();
  const r =
    origin === 'owner'
      ? await hitThrottle(em, 'reset_mail', userId, app.config.limits.verificationMailsPerAccountPerHour)
      : await hitDailyThrottle(em, 'signup_reset_mail', userId, SIGNUP_RESET_MAILS_PER_DAY);
  return r.allowed;
}

async function mailPasswordLink(app: AppContext, email: string, origin: LinkOrigin): Promise<void> {
  const em = app.orm.em.fork();
  const normalised = email.trim().toLowerCase();
  if (normalised.length > 320 || !EMAIL_RE.test(normalised)) return;
  const user = await one<{ id: string; email: string }>(em, 'select id, email from human_users where email = ?', [
    normalised,
  ]);
  if (!user || !(await chargeLinkMail(app, user.id, origin))) return;
  const token = newSecret(RESET_TOKEN_PREFIX);
  const ttlS = app.config.durations.emailVerificationS;
  await rows(
    em,
    `insert into email_verifications (token_hash, user_id, email, expires_at) values (?, ?, ?, now() + make_interval(secs => ?))`,
    [hashSecret(token), user.id, user.email, ttlS],
  );
  const link = `${app.config.http.webUrl}/auth/reset?token=${token}`;
  await sendMail(app, {
    to: user.email,
    subject: 'Set your password for Agent Artifact Drive',
    text:
      `Someone (we hope you) asked to sign up or to set a new password with this address.\n\n` +
      `To choose a new password, open this link:\n\n${link}\n\n` +
      `The link works once, within ${Math.round(ttlS / 3600)} hours. Setting a password signs out every session ` +
      `of the account. If you did not ask, ignore this mail: nothing changes.\n`,
  });
}

export type ResetOutcome =
  | { ok: true; user: { id: string; email: string }; driveId: string | null; retired: boolean }
  | { ok: false; reason: 'invalid' | 'weak_password' };

/** Spends a reset link: sets the password (retiring an unconfirmed account) and ends the old sessions. */
export async function resetPassword(app: AppContext, token: string, password: string): Promise<ResetOutcome> {
  if (!token.startsWith(RESET_TOKEN_PREFIX) || token.length > 128) return { ok: false, reason: 'invalid' };
  if (password.length < PASSWORD_MIN || password.length > PASSWORD_MAX) return { ok: false, reason: 'weak_password' };
  const hash = await hashPassword(password);
  const outcome = await transaction(app, async (tx) => {
    const link = await one<{ user_id: string; email: string; usable: boolean }>(
      tx,
      `select user_id, email, used_at is null and expires_at > now() as usable from email_verifications
        where token_hash = ? for update`,
      [hashSecret(token)],
    );
    if (!link?.usable) return undefined;
    const user = await one<{ email: string; verified: boolean }>(
      tx,
      `select email, email_verified_at is not null as verified from human_users where id = ? for update`,
      [link.user_id],
    );
    if (!user || user.email !== link.email) return undefined;
    await rows(tx, `update email_verifications set used_at = now() where user_id = ? and used_at is null`, [
      link.user_id,
    ]);
    if (user.verified) {
      await rows(tx, `update human_users set password_hash = ? where id = ?`, [hash, link.user_id]);
      return { old: link.user_id, user: { id: link.user_id, email: user.email }, retired: false };
    }
    await retire(tx, link.user_id);
    const id = newId('usr');
    await rows(tx, `insert into human_users (id, email, password_hash, email_verified_at) values (?, ?, ?, now())`, [
      id,
      user.email,
      hash,
    ]);
    return { old: link.user_id, user: { id, email: user.email }, retired: true };
  });
  if (!outcome) return { ok: false, reason: 'invalid' };
  await revokeAllWebSessions(app, outcome.old);
  const [drive] = await listUserDrives(app.orm.em.fork(), outcome.user.id);
  return { ok: true, user: outcome.user, driveId: drive?.id ?? null, retired: outcome.retired };
}

/** Releases an unconfirmed account's address (it can no longer sign in); its drives stay with it, unreachable. */
async function retire(tx: Parameters<typeof rows>[0], userId: string): Promise<void> {
  await rows(tx, `update human_users set email = ? where id = ?`, [`retired+${userId}@invalid`, userId]);
}

/**
 * Unconfirmed accounts expire (UNVERIFIED_ACCOUNT_TTL_S, 7 days): the cleanup run retires them, releasing their
 * address, and ends their sessions. Returns how many.
 */
export async function retireUnconfirmedAccounts(app: AppContext): Promise<number> {
  const stale = await rows<{ id: string }>(
    app.orm.em.fork(),
    `select id from human_users where email_verified_at is null and email not like 'retired+%'
        and created_at < now() - make_interval(secs => ?) limit 500`,
    [app.config.durations.unverifiedAccountS],
  );
  for (const { id } of stale) {
    await transaction(app, (tx) => retire(tx, id));
    await revokeAllWebSessions(app, id);
  }
  return stale.length;
}
