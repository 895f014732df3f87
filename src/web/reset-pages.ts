import { requestPasswordLink, resetPassword } from '../identity/password-reset.js';
import { PASSWORD_MIN } from '../identity/users.js';
import { csrfField, html } from './html.js';
import { go, show, type PageAnswer } from './kit/call.js';
import { form, page, type Declaration } from './kit/declare.js';
import { startSignedInSession } from './session.js';

/**
 * "Forgot your password?" and the mailed link that sets one (src/identity/password-reset.ts). Asking answers the
 * same page whether or not the address has an account; the link's GET only shows the form (mail scanners that
 * fetch links spend nothing), its POST sets the password, ends every other session and signs in.
 */

/** The answer to every sign-up and every "forgot password" request: nothing else is said. */
export const checkMail = (email: string): PageAnswer =>
  show(
    'Check your mail',
    html`<p role="status">
        If <strong>${email}</strong> can receive mail, a link is on its way to it. Open it to confirm the address (or
        set a new password, if the address already had an account) and sign in. The link works once.
      </p>
      <p><a href="/auth/login">Back to sign in</a></p>`,
  );

const TITLE = 'Set your password';
const resetForm = (csrf: string, token: string, error?: string) =>
  html`${error ? html`<p class="error" role="alert">${error}</p>` : ''}
    <form method="post" action="/auth/reset">
      ${csrfField(csrf)} <input type="hidden" name="token" value="${token}" />
      <label
        >New password
        <input type="password" name="password" required minlength="${PASSWORD_MIN}" maxlength="256" autocomplete="new-password"
      /></label>
      <button type="submit">Set password and sign in</button>
    </form>`;

export const resetPages: Declaration[] = [
  page({ path: '/auth/forgot', who: 'anyone' }, async (c) =>
    show(
      'Forgot your password?',
      html`<form method="post" action="/auth/forgot">
        ${csrfField(c.csrf())}
        <label>Email <input type="email" name="email" required maxlength="320" autocomplete="email" /></label>
        <button type="submit">Mail me a link</button>
      </form>`,
    ),
  ),

  form({ path: '/auth/forgot', who: 'anyone', back: '/auth/forgot' }, async (c) => {
    const email = c.field('email').slice(0, 320);
    await requestPasswordLink(c.ctx, email, c.req.ip ?? 'unknown');
    return checkMail(email);
  }),

  page({ path: '/auth/reset', who: 'anyone' }, async (c) =>
    show(TITLE, resetForm(c.csrf(), c.query('token').slice(0, 128))),
  ),

  form({ path: '/auth/reset', who: 'anyone', back: '/auth/forgot' }, async (c) => {
    const token = c.field('token').slice(0, 128);
    const outcome = await resetPassword(c.ctx, token, c.field('password'));
    if (!outcome.ok && outcome.reason === 'weak_password')
      return show(TITLE, resetForm(c.csrf(), token, `Choose a password of at least ${PASSWORD_MIN} characters.`), 400);
    if (!outcome.ok)
      return show(
        TITLE,
        html`<p class="error">This link is not valid any more. <a href="/auth/forgot">Ask for a new one</a>.</p>`,
        400,
      );
    const { user, driveId } = outcome;
    await startSignedInSession(c.ctx, c.req, c.res, { uid: user.id, email: user.email, drv: driveId });
    return go('/dashboard');
  }),
];
