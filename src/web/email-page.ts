import { confirmEmail, sendVerificationMail } from '../identity/email-verification.js';
import { confirmAndSignIn } from '../identity/accounts.js';
import { windowRetryAfterS } from '../platform/rate-limits.js';
import { safeReturnTo } from './format.js';
import { csrfField, html } from './html.js';
import { go, show, type AnyoneCall } from './kit/call.js';
import { form, page, type Declaration } from './kit/declare.js';
import { startSignedInSession } from './session.js';

/**
 * Email verification (src/identity/email-verification.ts): the mailed link opens a confirmation
 * form (a GET never spends it, so mail scanners that fetch links change nothing). Opened by someone not signed in
 * (the usual way after sign-up) it asks for the password chosen at sign-up, which confirms and signs in; a session
 * signed in to the same account confirms with a button; the dashboard's "resend" mails a fresh link.
 */
const TITLE = 'Confirm your email';

const passwordForm = (csrf: string, token: string, returnTo: string, error?: string) =>
  html`${error ? html`<p class="error" role="alert">${error}</p>` : ''}
    <p>Enter the password you chose when you created the account to confirm your address and sign in.</p>
    <form method="post" action="/auth/verify">
      ${csrfField(csrf)} <input type="hidden" name="token" value="${token}" />
      <input type="hidden" name="return_to" value="${returnTo}" />
      <label
        >Password <input type="password" name="password" required maxlength="256" autocomplete="current-password"
      /></label>
      <button type="submit">Confirm and sign in</button>
    </form>
    <p>Not your account? <a href="/auth/forgot">Set a new password for this address</a> instead.</p>`;

/** Not signed in: the link and the password chosen at sign-up confirm the address and sign in. */
async function confirmWithPassword(c: AnyoneCall) {
  const token = c.field('token').slice(0, 128);
  const returnTo = safeReturnTo(c.field('return_to'));
  const outcome = await confirmAndSignIn(c.ctx, { token, password: c.field('password') });
  if (!outcome.ok) {
    const error = 'The password is wrong, or this link is expired or already used.';
    return show(TITLE, passwordForm(c.csrf(), token, returnTo, error), 400);
  }
  const { user, driveId } = outcome;
  await startSignedInSession(c.ctx, c.req, c.res, { uid: user.id, email: user.email, drv: driveId });
  return go(returnTo);
}

export const emailPages: Declaration[] = [
  page({ path: '/auth/verify', who: 'anyone' }, async (c) => {
    const token = c.query('token').slice(0, 128);
    if (!c.session?.uid) return show(TITLE, passwordForm(c.csrf(), token, safeReturnTo(c.query('return_to'))));
    const flash = c.flash();
    if (flash?.verified)
      return show(
        TITLE,
        html`<p class="ok" role="status">Thank you: <strong>${flash.verified}</strong> is confirmed.</p>
          <p><a href="/dashboard">Go to the dashboard</a>.</p>`,
      );
    return show(
      TITLE,
      html` <p>
          Confirm that <strong>${c.session.email ?? ''}</strong> is your address. Files shared with it then reach your drives.
        </p>
        <form method="post" action="/auth/verify">
          ${csrfField(c.session.csrf)} <input type="hidden" name="token" value="${token}" /><button
            type="submit"
          >
            Confirm my email
          </button>
        </form>`,
    );
  }),

  form({ path: '/auth/verify', who: 'anyone', back: '/dashboard' }, async (c) => {
    if (!c.session?.uid) return confirmWithPassword(c);
    const outcome = await confirmEmail(c.ctx, c.session.uid, c.field('token'));
    if (outcome === 'verified') return go('/auth/verify', { verified: c.session.email ?? '' });
    if (outcome === 'wrong_account')
      return show(
        TITLE,
        html`<p class="error">
          This link was sent for another account. Sign out, then sign in to the account that asked for it and open the
          link again.
        </p>`,
        403,
      );
    return show(
      TITLE,
      html`<p class="error">
        This link is unknown, expired or already used. <a href="/dashboard">Ask for a new one</a> from the dashboard.
      </p>`,
      410,
    );
  }),

  form({ path: '/dashboard/verify-email', who: 'signed_in', back: '/dashboard' }, async (c) => {
    const outcome = await sendVerificationMail(c.ctx, c.session.uid);
    const notices: Record<Exclude<typeof outcome, 'throttled' | 'failed'>, string> = {
      sent: `A new link is on its way to ${c.session.email}.`,
      logged: "No mail server is configured: the link was written to the server's log.",
      already_verified: 'Your email is already confirmed.',
    };
    // POST → 303 → GET: the dashboard says it once; a reload sends nothing.
    if (outcome !== 'throttled' && outcome !== 'failed') return go('/dashboard', { notice: notices[outcome] });
    if (outcome === 'throttled') c.res.setHeader('Retry-After', String(windowRetryAfterS()));
    return show(
      TITLE,
      html`<p class="error">
          ${
            outcome === 'throttled'
              ? 'Too many mails sent to this address in the last hour. Try again later.'
              : 'The mail could not be sent just now. Try again later.'
          }
        </p>
        <p><a href="/dashboard">Back to the dashboard</a></p>`,
      outcome === 'throttled' ? 429 : 503,
    );
  }),
];
