import type { AppContext } from '../platform/context.js';
import { one, rows, transaction } from '../db/sql.js';
import { sendMail } from '../mail/mailer.js';
import { hitThrottle } from '../platform/rate-limits.js';
import { hashSecret, newSecret } from '../lib/secrets.js';

/**
 * Email is proven before it counts (docs/decisions.md, Email verification). Sign-up mails a link
 * `{web_url}/auth/verify?token=adev_…`; the secret is stored as SHA-256 with an expiry
 * (`EMAIL_VERIFICATION_TTL_S`, 24 h) and is spent by the first confirmation. Confirming takes the
 * link AND the account: a session signed in to it, or (the usual way, since a password signs in only once the
 * address is confirmed) the password chosen at sign-up (`confirmAndSignIn`, src/identity/accounts.ts). Whoever
 * created an account with someone else's address cannot verify it without that mailbox, and the mailbox's owner
 * clicking a link they never asked for verifies nobody. Until then the address is not the owner email of the
 * account's drives and `{type: user, email}` grants do not reach them (src/access/authorize.ts).
 */
export const VERIFY_TOKEN_PREFIX = 'adev_';

export type VerificationMailOutcome = 'sent' | 'logged' | 'already_verified' | 'throttled' | 'failed';

interface AccountRow {
  id: string;
  email: string;
  verified: boolean;
}

export async function accountEmailState(app: AppContext, userId: string): Promise<AccountRow | undefined> {
  return one<AccountRow>(
    app.orm.em.fork(),
    `select id, email, email_verified_at is not null as verified from human_users where id = ?`,
    [userId],
  );
}

/**
 * Mails a fresh link to the account's address (at sign-up, and the dashboard's resend); at most
 * VERIFICATION_MAILS_PER_ACCOUNT_PER_HOUR.
 */
export async function sendVerificationMail(
  app: AppContext,
  userId: string,
  returnTo?: string,
): Promise<VerificationMailOutcome> {
  const account = await accountEmailState(app, userId);
  if (!account || account.verified) return 'already_verified';
  const em = app.orm.em.fork();
  if (
    !(await hitThrottle(em, 'verification_mail', userId, app.config.limits.verificationMailsPerAccountPerHour)).allowed
  )
    return 'throttled';
  const token = newSecret(VERIFY_TOKEN_PREFIX);
  const ttlS = app.config.durations.emailVerificationS;
  await rows(
    em,
    `insert into email_verifications (token_hash, user_id, email, expires_at) values (?, ?, ?, now() + make_interval(secs => ?))`,
    [hashSecret(token), userId, account.email, ttlS],
  );
  const back = returnTo && returnTo !== '/dashboard' ? `&return_to=${encodeURIComponent(returnTo)}` : '';
  const link = `${app.config.http.webUrl}/auth/verify?token=${token}${back}`;
  try {
    return await sendMail(app, {
      to: account.email,
      subject: 'Confirm your email for Agent Artifact Drive',
      text:
        `Someone (we hope you) created an Agent Artifact Drive account with this address.\n\n` +
        `To confirm it and sign in, open this link and enter the password you chose for it:\n\n${link}\n\n` +
        `The link works once, within ${Math.round(ttlS / 3600)} hours. Until the address is confirmed, files shared ` +
        `with it do not reach the account's drives.\n\nIf you did not create the account, ignore this mail: nothing happens.\n`,
    });
  } catch (err) {
    app.logger.error({ err, user: userId }, 'verification mail could not be sent');
    return 'failed';
  }
}

/** The account a live, unused confirmation link was sent for (its current address), or undefined. */
export async function linkAccount(app: AppContext, token: string): Promise<{ id: string; email: string } | undefined> {
  if (!token.startsWith(VERIFY_TOKEN_PREFIX) || token.length > 128) return undefined;
  return one<{ id: string; email: string }>(
    app.orm.em.fork(),
    `select u.id, u.email from email_verifications v join human_users u on u.id = v.user_id and u.email = v.email
      where v.token_hash = ? and v.used_at is null and v.expires_at > now()`,
    [hashSecret(token)],
  );
}

export type ConfirmOutcome = 'verified' | 'invalid' | 'wrong_account';

/**
 * Spends a link for the signed-in account: it must be live, unused and sent to the account's current
 * address. Every other link of the account is spent with it; the account's claimed drives take
 * the address as their owner email. A link of another account is refused and left unspent.
 */
export async function confirmEmail(app: AppContext, userId: string, token: string): Promise<ConfirmOutcome> {
  if (!token.startsWith(VERIFY_TOKEN_PREFIX) || token.length > 128) return 'invalid';
  return transaction(app, async (tx) => {
    const link = await one<{ user_id: string; email: string; usable: boolean }>(
      tx,
      `select user_id, email, used_at is null and expires_at > now() as usable from email_verifications where token_hash = ? for update`,
      [hashSecret(token)],
    );
    if (!link || !link.usable) return 'invalid';
    if (link.user_id !== userId) return 'wrong_account';
    const user = await one<{ email: string }>(tx, `select email from human_users where id = ? for update`, [userId]);
    if (!user || user.email !== link.email) return 'invalid';
    await rows(tx, `update email_verifications set used_at = now() where user_id = ? and used_at is null`, [userId]);
    await rows(tx, `update human_users set email_verified_at = coalesce(email_verified_at, now()) where id = ?`, [
      userId,
    ]);
    await rows(tx, `update drives set owner_email = ? where owner_user_id = ? and owner_email is null`, [
      user.email,
      userId,
    ]);
    return 'verified';
  });
}
