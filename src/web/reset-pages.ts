import { Router, type Response } from 'express';
import type { AppContext } from '../platform/context.js';
import { requestPasswordLink, resetPassword } from '../identity/password-reset.js';
import { PASSWORD_MIN } from '../identity/users.js';
import { csrfField, html, sendPage } from './html.js';
import { csrfValid, ensureSession, readSession, startSignedInSession } from './session.js';

/**
 * "Forgot your password?" and the mailed link that sets one (src/identity/password-reset.ts). Asking answers the
 * same page whether or not the address has an account; the link's GET only shows the form (mail scanners that
 * fetch links spend nothing), its POST sets the password, ends every other session and signs in.
 */

/** The answer to every sign-up and every "forgot password" request: nothing else is said. */
export function sendCheckMail(res: Response, email: string): void {
  sendPage(
    res,
    'Check your mail',
    html`<p role="status">
        If <strong>${email}</strong> can receive mail, a link is on its way to it. Open it to confirm the address (or
        set a new password, if the address already had an account) and sign in. The link works once.
      </p>
      <p><a href="/auth/login">Back to sign in</a></p>`,
  );
}

export function resetPagesRouter(ctx: AppContext): Router {
  const router = Router();

  router.get('/auth/forgot', (req, res) => {
    const session = ensureSession(ctx.config, req, res);
    sendPage(
      res,
      'Forgot your password?',
      html`<form method="post" action="/auth/forgot">
        ${csrfField(session.csrf)}
        <label>Email <input type="email" name="email" required maxlength="320" autocomplete="email" /></label>
        <button type="submit">Mail me a link</button>
      </form>`,
    );
  });

  router.post('/auth/forgot', async (req, res) => {
    const email = typeof req.body?.email === 'string' ? req.body.email.slice(0, 320) : '';
    if (!csrfValid(readSession(req), req.body?.csrf))
      return sendPage(res, 'Forgot your password?', html`<p class="error">Your form expired.</p>`, 403);
    await requestPasswordLink(ctx, email, req.ip ?? 'unknown');
    sendCheckMail(res, email);
  });

  const form = (csrf: string, token: string, error?: string) =>
    html`${error ? html`<p class="error" role="alert">${error}</p>` : ''}
      <form method="post" action="/auth/reset">
        ${csrfField(csrf)} <input type="hidden" name="token" value="${token}" />
        <label
          >New password
          <input
            type="password"
            name="password"
            required
            minlength="${PASSWORD_MIN}"
            maxlength="256"
            autocomplete="new-password"
        /></label>
        <button type="submit">Set password and sign in</button>
      </form>`;

  router.get('/auth/reset', (req, res) => {
    const session = ensureSession(ctx.config, req, res);
    const token = typeof req.query.token === 'string' ? req.query.token.slice(0, 128) : '';
    sendPage(res, 'Set your password', form(session.csrf, token));
  });

  router.post('/auth/reset', async (req, res) => {
    const session = readSession(req);
    const token = typeof req.body?.token === 'string' ? req.body.token.slice(0, 128) : '';
    const password = typeof req.body?.password === 'string' ? req.body.password : '';
    if (!session || !csrfValid(session, req.body?.csrf))
      return sendPage(
        res,
        'Set your password',
        html`<p class="error">Your form expired. Open the link again.</p>`,
        403,
      );
    const outcome = await resetPassword(ctx, token, password);
    if (!outcome.ok && outcome.reason === 'weak_password')
      return sendPage(
        res,
        'Set your password',
        form(session.csrf, token, `Choose a password of at least ${PASSWORD_MIN} characters.`),
        400,
      );
    if (!outcome.ok)
      return sendPage(
        res,
        'Set your password',
        html`<p class="error">This link is not valid any more. <a href="/auth/forgot">Ask for a new one</a>.</p>`,
        400,
      );
    const { user, driveId } = outcome;
    await startSignedInSession(ctx, req, res, { uid: user.id, email: user.email, drv: driveId });
    res.redirect(303, '/dashboard');
  });
  return router;
}
