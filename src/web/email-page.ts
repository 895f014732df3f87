import { Router, type Request, type Response } from 'express';
import type { AppContext } from '../platform/context.js';
import { confirmEmail, sendVerificationMail } from '../identity/email-verification.js';
import { windowRetryAfterS } from '../platform/rate-limits.js';
import { confirmAndSignIn } from '../identity/accounts.js';
import { loginUrl, safeReturnTo } from './auth-pages.js';
import { csrfField, html, sendPage } from './html.js';
import { csrfValid, ensureSession, readSession, startSignedInSession, takeFlash, writeFlash } from './session.js';

/**
 * Email verification (src/identity/email-verification.ts): the mailed link opens a confirmation
 * form (a GET never spends it, so mail scanners that fetch links change nothing), which a session
 * signed in to the same account submits; the dashboard's "resend" mails a fresh link.
 */
const TITLE = 'Confirm your email';

/** The link opened by someone not signed in (the usual way after sign-up): the password chosen then confirms. */
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

async function confirmWithPassword(ctx: AppContext, req: Request, res: Response, token: string, csrf: string) {
  const returnTo = safeReturnTo(req.body?.return_to);
  const password = typeof req.body?.password === 'string' ? req.body.password : '';
  const outcome = await confirmAndSignIn(ctx, { token, password });
  if (!outcome.ok) {
    const error = 'The password is wrong, or this link is expired or already used.';
    return sendPage(res, TITLE, passwordForm(csrf, token, returnTo, error), 400);
  }
  const { user, driveId } = outcome;
  await startSignedInSession(ctx, req, res, { uid: user.id, email: user.email, drv: driveId });
  res.redirect(303, returnTo);
}

export function emailPageRouter(ctx: AppContext): Router {
  const router = Router();

  router.get('/auth/verify', (req, res) => {
    const token = typeof req.query.token === 'string' ? req.query.token.slice(0, 128) : '';
    const session = ensureSession(ctx.config, req, res);
    if (!session.uid) return sendPage(res, TITLE, passwordForm(session.csrf, token, safeReturnTo(req.query.return_to)));
    const flash = takeFlash(ctx.config, req, res, '/auth/verify');
    if (flash?.verified)
      return sendPage(
        res,
        TITLE,
        html`<p class="ok" role="status">Thank you: <strong>${flash.verified}</strong> is confirmed.</p>
          <p><a href="/dashboard">Go to the dashboard</a>.</p>`,
      );
    sendPage(
      res,
      TITLE,
      html` <p>
          Confirm that <strong>${session.email}</strong> is your address. Files shared with it then reach your drives.
        </p>
        <form method="post" action="/auth/verify">
          ${csrfField(session.csrf)} <input type="hidden" name="token" value="${token}" /><button type="submit">
            Confirm my email
          </button>
        </form>`,
    );
  });

  router.post('/auth/verify', async (req, res) => {
    const session = readSession(req);
    const token = typeof req.body?.token === 'string' ? req.body.token.slice(0, 128) : '';
    if (!session || !csrfValid(session, req.body?.csrf))
      return sendPage(
        res,
        TITLE,
        html`<p class="error">Your form expired. Open the link from the mail again.</p>`,
        403,
      );
    if (!session.uid) return confirmWithPassword(ctx, req, res, token, session.csrf);
    const outcome = await confirmEmail(ctx, session.uid, token);
    if (outcome === 'verified') {
      writeFlash(ctx.config, res, '/auth/verify', { verified: session.email ?? '' });
      return res.redirect(303, '/auth/verify');
    }
    if (outcome === 'wrong_account') {
      return sendPage(
        res,
        TITLE,
        html`<p class="error">
          This link was sent for another account. Sign out, then sign in to the account that asked for it and open the
          link again.
        </p>`,
        403,
      );
    }
    sendPage(
      res,
      TITLE,
      html`<p class="error">
        This link is unknown, expired or already used. <a href="/dashboard">Ask for a new one</a> from the dashboard.
      </p>`,
      410,
    );
  });

  router.post('/dashboard/verify-email', async (req, res) => {
    const session = readSession(req);
    if (!session?.uid) return res.redirect(303, loginUrl('/dashboard'));
    if (!csrfValid(session, req.body?.csrf))
      return sendPage(res, TITLE, html`<p class="error">Your form expired. Try again.</p>`, 403);
    const outcome = await sendVerificationMail(ctx, session.uid);
    const notices: Record<Exclude<typeof outcome, 'throttled' | 'failed'>, string> = {
      sent: `A new link is on its way to ${session.email}.`,
      logged: "No mail server is configured: the link was written to the server's log.",
      already_verified: 'Your email is already confirmed.',
    };
    if (outcome !== 'throttled' && outcome !== 'failed') {
      // POST → 303 → GET: the dashboard says it once; a reload sends nothing.
      writeFlash(ctx.config, res, '/dashboard', { notice: notices[outcome] });
      return res.redirect(303, '/dashboard');
    }
    if (outcome === 'throttled') res.setHeader('Retry-After', String(windowRetryAfterS()));
    sendPage(
      res,
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
  });

  return router;
}
