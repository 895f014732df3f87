import { randomUUID } from 'node:crypto';
import express, { Router, type ErrorRequestHandler } from 'express';
import { rejectNulInBody } from '../edge/input-gate.js';
import type { AppContext } from '../platform/context.js';
import { AppError } from '../lib/errors.js';
import { authPagesRouter } from './auth-pages.js';
import { claimPageRouter } from './claim-page.js';
import { dashboardRouter } from './dashboard-page.js';
import { emailPageRouter } from './email-page.js';
import { oauthConsentRouter } from './oauth-consent-page.js';
import { html, sendPage } from './html.js';
import { loadSession, WebAuthNotConfigured } from './session.js';
import { viewerRouter } from './viewer/routes.js';
import { drivePagesRouter } from './owner/drive-pages.js';
import { sharingPageRouter } from './owner/sharing-page.js';
import { sharePageRouter } from './viewer/share-page.js';

const FORM_PATHS = ['/auth', '/claim', '/dashboard', '/oauth2/authorize', '/s', '/settings', '/trash', '/files'];

/** The human-facing pages (server-rendered HTML, form posts). Errors render as pages, not JSON. */
export function webRouter(ctx: AppContext): Router {
  const router = Router();
  // Every page reads the session through this (a signed-in cookie counts only while its server-side session is live).
  router.use(loadSession(ctx));
  const forms = express.urlencoded({ extended: false, limit: '16kb', parameterLimit: 20 });
  router.use(FORM_PATHS, forms, rejectNulInBody);
  router.use(
    authPagesRouter(ctx),
    emailPageRouter(ctx),
    claimPageRouter(ctx),
    dashboardRouter(ctx),
    oauthConsentRouter(ctx),
    drivePagesRouter(ctx),
    sharingPageRouter(ctx),
  );
  // The viewer last: its `/{drive_id}/…` route passes anything that is not a drive id on.
  router.use(sharePageRouter(ctx), viewerRouter(ctx));

  const pageErrors: ErrorRequestHandler = (err, req, res, _next) => {
    if (err instanceof WebAuthNotConfigured) {
      return sendPage(res, 'Unavailable', html`<p class="error">Sign-in is not configured on this server.</p>`, 503);
    }
    if (err instanceof AppError && err.code === 'RATE_LIMITED') {
      // A throttle (sign-up, sign-in, claim codes, share passwords): 429 with Retry-After, as on /v0.
      for (const [name, value] of Object.entries(err.headers)) res.setHeader(name, value);
      const minutes = Math.ceil(Number(err.headers['Retry-After'] ?? 3600) / 60);
      return sendPage(
        res,
        'Too many attempts',
        html`<p class="error" role="alert">
          Too many attempts from your network or account. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.
        </p>`,
        429,
      );
    }
    if (
      (typeof err?.type === 'string' && err.type.startsWith('entity.')) ||
      (err instanceof AppError && err.status < 500)
    ) {
      return sendPage(res, 'Bad request', html`<p class="error">The form could not be read.</p>`, err.status ?? 400);
    }
    const errorId = randomUUID();
    ctx.logger.error({ err, error_id: errorId, req_id: req.id }, 'page error');
    sendPage(res, 'Something went wrong', html`<p class="error">Internal error (id ${errorId}).</p>`, 500);
  };
  router.use([...FORM_PATHS, '/a', '/f'], pageErrors);
  router.use(
    '/:driveId',
    (
      err: unknown,
      req: Parameters<ErrorRequestHandler>[1],
      res: Parameters<ErrorRequestHandler>[2],
      next: Parameters<ErrorRequestHandler>[3],
    ) => (/^\/drv_/.test(req.originalUrl) ? pageErrors(err, req, res, next) : next(err)),
  );
  return router;
}
