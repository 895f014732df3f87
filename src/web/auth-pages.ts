import { signInAccount, signUpAccount } from '../identity/accounts.js';
import { PASSWORD_MIN } from '../identity/users.js';
import { loginUrl, safeReturnTo } from './format.js';
import { csrfField, html, type Html } from './html.js';
import { go, show, type AnyoneCall } from './kit/call.js';
import { form as webForm, page, type Declaration } from './kit/declare.js';
import { checkMail } from './reset-pages.js';
import {
  DEVICE_COOKIE,
  readCookie,
  signOutEverywhere,
  signOutSession,
  startSignedInSession,
  writeDeviceCookie,
  writeSession,
} from './session.js';

/**
 * Human sign-in: sign-up and sign-in are separate pages (email + password), so a typo in an
 * email never silently creates a second account. Both rotate the session (and its CSRF token).
 */

type Mode = 'login' | 'signup';

function form(mode: Mode, csrf: string, returnTo: string, email = '', error?: string): Html {
  const other =
    mode === 'login'
      ? html`<p>No account yet? <a href="/auth/signup?return_to=${encodeURIComponent(returnTo)}">Create one</a>.</p>
          <p><a href="/auth/forgot">Forgot your password?</a></p>`
      : html`<p>Already have an account? <a href="${loginUrl(returnTo)}">Sign in</a>.</p>`;
  // Arriving from an agent's claim link: say why the person is here, through sign-up and sign-in.
  const claim = /^\/claim\?code=([\w-]{1,32})$/.exec(returnTo);
  const why = claim
    ? html`<div class="notice" data-testid="claim-context">
        <p>
          <strong>An AI agent asked you to claim its drive</strong> (code <code>${claim[1]}</code>).
          ${mode === 'login' ? 'Sign in' : 'Create an account'} to see what the drive holds and approve or decline;
          then you will see how long the code still works.
        </p>
      </div>`
    : '';
  return html`${why} ${error ? html`<p class="error" role="alert">${error}</p>` : ''}
    <form method="post" action="/auth/${mode}">
      ${csrfField(csrf)}
      <input type="hidden" name="return_to" value="${returnTo}" />
      <label
        >Email <input type="email" name="email" value="${email}" required maxlength="320" autocomplete="email"
      /></label>
      <label
        >Password
        <input
          type="password"
          name="password"
          required
          minlength="${mode === 'signup' ? PASSWORD_MIN : 1}"
          maxlength="256"
          autocomplete="${mode === 'signup' ? 'new-password' : 'current-password'}"
      /></label>
      <button type="submit">${mode === 'login' ? 'Sign in' : 'Create account'}</button>
    </form>
    ${other}`;
}

const TITLES: Record<Mode, string> = { login: 'Sign in', signup: 'Create account' };

/** The empty form; someone already signed in goes on to where they were going. */
function formPage(c: AnyoneCall, mode: Mode) {
  const returnTo = safeReturnTo(c.query('return_to'));
  if (c.session?.uid) return go(returnTo);
  return show(TITLES[mode], form(mode, c.csrf(), returnTo));
}

/** What both forms post: the address (kept when the form shows again) and where to go after. */
const posted = (c: AnyoneCall) => ({
  email: c.field('email').slice(0, 320),
  returnTo: safeReturnTo(c.field('return_to')),
  ip: c.req.ip ?? 'unknown',
});

/** The form again, saying what to fix. */
const retry = (c: AnyoneCall, mode: Mode, status: number, error: string) =>
  show(TITLES[mode], form(mode, c.csrf(), posted(c).returnTo, posted(c).email, error), status);

/** An expired form shows itself again, with a fresh token and the email kept. */
const expired = (mode: Mode) => (c: AnyoneCall) => {
  const fresh = writeSession(c.ctx.config, c.req, c.res, {});
  return show(TITLES[mode], form(mode, fresh.csrf, posted(c).returnTo, posted(c).email, EXPIRED), 403);
};

/** Signed in: a new server-side session (and CSRF token) for this browser, then where the person was going. */
async function signedIn(c: AnyoneCall, account: { user: { id: string; email: string }; driveId: string | null }) {
  const { user, driveId } = account;
  await startSignedInSession(c.ctx, c.req, c.res, { uid: user.id, email: user.email, drv: driveId });
  return go(posted(c).returnTo);
}

const EXPIRED = 'Your form expired. Please try again.';
const MESSAGES = {
  invalid_email: 'Enter a valid email address.',
  weak_password: `Choose a password of at least ${PASSWORD_MIN} characters.`,
  wrong: 'Email or password is wrong, or the address is not confirmed yet (open the link we mailed).',
};

export const authPages: Declaration[] = [
  page({ path: '/auth/login', who: 'anyone' }, async (c) => formPage(c, 'login')),
  page({ path: '/auth/signup', who: 'anyone' }, async (c) => formPage(c, 'signup')),
  webForm({ path: '/auth/login', who: 'anyone', expired: expired('login') }, async (c) => {
    const { email, ip } = posted(c);
    const device = readCookie(c.req, DEVICE_COOKIE);
    const result = await signInAccount(c.ctx, { email, password: c.field('password'), ip, device });
    if (!result.ok) return retry(c, 'login', 401, MESSAGES.wrong);
    if (result.device) writeDeviceCookie(c.ctx.config, c.req, c.res, result.device);
    return signedIn(c, result);
  }),
  webForm({ path: '/auth/signup', who: 'anyone', expired: expired('signup') }, async (c) => {
    // The same answer whether or not the address has an account: the mailed link finishes (issue 37).
    const { email, ip, returnTo } = posted(c);
    const result = await signUpAccount(c.ctx, { email, password: c.field('password'), ip, returnTo });
    return result.ok ? checkMail(email) : retry(c, 'signup', 400, MESSAGES[result.reason]);
  }),
  // Sign-out ends the server-side session; "everywhere" ends every session of the account (other browsers too).
  webForm({ path: '/auth/logout', who: 'anyone', back: '/auth/login' }, async (c) => {
    await signOutSession(c.ctx, c.req, c.res);
    return go('/auth/login');
  }),
  webForm({ path: '/auth/logout-everywhere', who: 'signed_in', back: '/settings' }, async (c) => {
    await signOutEverywhere(c.ctx, c.req, c.res, c.session.uid);
    return go('/auth/login');
  }),
];
