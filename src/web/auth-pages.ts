import { Router, type Request, type Response } from 'express';
import type { AppContext } from '../platform/context.js';
import { signInAccount, signUpAccount } from '../identity/accounts.js';
import { PASSWORD_MIN } from '../identity/users.js';
import { csrfField, html, sendPage, type Html } from './html.js';
import { sendCheckMail } from './reset-pages.js';
import {
  csrfValid,
  ensureSession,
  readSession,
  signOutEverywhere,
  signOutSession,
  startSignedInSession,
  writeSession,
} from './session.js';

/**
 * Human sign-in: sign-up and sign-in are separate pages (email + password), so a typo in an
 * email never silently creates a second account. Both rotate the session (and its CSRF token).
 */

/**
 * Only same-site relative paths are followed after sign-in (no open redirects). Long enough for an OAuth
 * authorization request (a client_id URL, state, PKCE challenge and resource), which must come back whole.
 */
export function safeReturnTo(value: unknown): string {
  return typeof value === 'string' && /^\/(?![/\\])[\x21-\x7e]*$/.test(value) && value.length <= 2048
    ? value
    : '/dashboard';
}

export const loginUrl = (returnTo: string) => `/auth/login?return_to=${encodeURIComponent(returnTo)}`;

type Mode = 'login' | 'signup';

function form(mode: Mode, csrf: string, returnTo: string, email = '', error?: string): Html {
  const other =
    mode === 'login'
      ? html`<p>No account yet? <a href="/auth/signup?return_to=${encodeURIComponent(returnTo)}">Create one</a>.</p>
          <p><a href="/auth/forgot">Forgot your password?</a></p>`
      : html`<p>Already have an account? <a href="${loginUrl(returnTo)}">Sign in</a>.</p>`;
  return html` ${error ? html`<p class="error" role="alert">${error}</p>` : ''}
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

function renderForm(ctx: AppContext, req: Request, res: Response, mode: Mode) {
  const session = ensureSession(ctx.config, req, res);
  const returnTo = safeReturnTo(req.query.return_to);
  if (session.uid) return res.redirect(303, returnTo);
  sendPage(res, TITLES[mode], form(mode, session.csrf, returnTo));
}

async function submit(ctx: AppContext, req: Request, res: Response, mode: Mode) {
  const session = readSession(req);
  const returnTo = safeReturnTo(req.body?.return_to);
  const email = typeof req.body?.email === 'string' ? req.body.email.slice(0, 320) : '';
  const password = typeof req.body?.password === 'string' ? req.body.password : '';
  if (!csrfValid(session, req.body?.csrf)) {
    const fresh = writeSession(ctx.config, req, res, {});
    return sendPage(
      res,
      TITLES[mode],
      form(mode, fresh.csrf, returnTo, email, 'Your form expired. Please try again.'),
      403,
    );
  }
  const retry = (status: number, error: string) =>
    sendPage(res, TITLES[mode], form(mode, session!.csrf, returnTo, email, error), status);

  if (mode === 'signup') {
    const result = await signUpAccount(ctx, { email, password, ip: req.ip ?? 'unknown', returnTo });
    if (result.ok) return sendCheckMail(res, email);
    const messages = {
      invalid_email: 'Enter a valid email address.',
      weak_password: `Choose a password of at least ${PASSWORD_MIN} characters.`,
    };
    return retry(400, messages[result.reason]);
  }
  const account = await signInAccount(ctx, email, password, req.ip ?? 'unknown');
  if (!account.ok)
    return retry(401, 'Email or password is wrong, or the address is not confirmed yet (open the link we mailed).');
  await startSignedInSession(ctx, req, res, { uid: account.user.id, email: account.user.email, drv: account.driveId });
  res.redirect(303, returnTo);
}

export function authPagesRouter(ctx: AppContext): Router {
  const router = Router();
  router.get('/auth/login', (req, res) => renderForm(ctx, req, res, 'login'));
  router.get('/auth/signup', (req, res) => renderForm(ctx, req, res, 'signup'));
  router.post('/auth/login', (req, res) => submit(ctx, req, res, 'login'));
  router.post('/auth/signup', (req, res) => submit(ctx, req, res, 'signup'));
  // Sign-out ends the server-side session; "everywhere" ends every session of the account (other browsers too).
  router.post('/auth/logout', async (req, res) => {
    const session = readSession(req);
    if (!csrfValid(session, req.body?.csrf))
      return sendPage(res, 'Sign out', html`<p class="error">Your form expired.</p>`, 403);
    await signOutSession(ctx, req, res);
    res.redirect(303, '/auth/login');
  });
  router.post('/auth/logout-everywhere', async (req, res) => {
    const session = readSession(req);
    if (!session?.uid) return res.redirect(303, '/auth/login');
    if (!csrfValid(session, req.body?.csrf))
      return sendPage(res, 'Sign out everywhere', html`<p class="error">Your form expired.</p>`, 403);
    await signOutEverywhere(ctx, req, res, session.uid);
    res.redirect(303, '/auth/login');
  });
  return router;
}
