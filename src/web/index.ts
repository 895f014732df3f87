import { randomUUID } from 'node:crypto';
import express, { Router, type ErrorRequestHandler, type Request, type RequestHandler } from 'express';
import { rejectNulInBody } from '../edge/input-gate.js';
import type { AppContext } from '../platform/context.js';
import { AppError } from '../lib/errors.js';
import { authPages } from './auth-pages.js';
import { claimPages } from './claim-page.js';
import { connectedAppsPages } from './connected-apps-page.js';
import { dashboardPages } from './dashboard-page.js';
import { emailPages } from './email-page.js';
import { resetPages } from './reset-pages.js';
import { oauthConsentPages } from './oauth-consent-page.js';
import { html, sendPage } from './html.js';
import { loadSession, WebAuthNotConfigured } from './session.js';
import { viewerPages } from './viewer/routes.js';
import { drivePages } from './owner/drive-pages.js';
import { sharingPages } from './owner/sharing-page.js';
import { sharePages } from './viewer/share-page.js';
import { runsPages } from './owner/runs-pages.js';
import type { SearchService } from '../search/service.js';
import { apiKeyForms } from './owner/api-keys.js';
import { fileActions } from './owner/file-actions.js';
import { searchPages } from './search-page.js';
import { assetsRouter } from './assets.js';
import { notFoundPage } from './kit/answer.js';
import { mount, type Declaration } from './kit/declare.js';

const FORM_PATHS = [
  '/auth',
  '/claim',
  '/dashboard',
  '/oauth2/authorize',
  '/s',
  '/settings',
  '/trash',
  '/files',
  '/activity',
  '/snapshots',
];
/** Paths whose errors are pages: the forms' and the viewer's (`/a`, `/f`, `/{drive_id}/…`), `/` and `/search`. */
const PAGE_PATH = new RegExp(`^(/|/search|/a/.*|/f/.*|/drv_.*|(${FORM_PATHS.join('|')})(/.*)?)$`);
/** The machine doors' paths: never answered with a page. */
const MACHINE_PATH = /^\/(v0|mcp|oauth2\/(token|revoke|register)|agent|\.well-known|openapi\.json|health)(\/|$)/;

/** A navigation by a browser (it asks for HTML), as opposed to an API client. */
const wantsHtml = (req: Request) =>
  (req.method === 'GET' || req.method === 'HEAD') && /\btext\/html\b/.test(req.headers.accept ?? '');

/**
 * One origin: a browser that reached the pages by another host name than the configured web origin (127.0.0.1 for
 * localhost, a bare IP, an old domain) is sent to the same path there, so the session cookie, CSRF tokens and the
 * content origin's frame-ancestors all see one origin.
 */
function canonicalOrigin(ctx: AppContext): RequestHandler {
  const web = new URL(ctx.config.http.webUrl);
  return (req, res, next) => {
    if (!wantsHtml(req) || MACHINE_PATH.test(req.path)) return next();
    const host = (req.host ?? req.headers.host ?? '').toLowerCase();
    if (!host || host === web.host.toLowerCase()) return next();
    res.redirect(302, `${web.origin}${req.originalUrl}`);
  };
}

/**
 * Mounted after every door: a browser asking for a page no door has gets the HTML "Not found" page with a way back
 * (API clients still get the JSON 404 of the REST door).
 */
export function webFallback(ctx: AppContext): Router {
  const router = Router();
  router.use(loadSession(ctx), (req, res, next) =>
    wantsHtml(req) && !MACHINE_PATH.test(req.path) ? notFoundPage(ctx, req, res) : next(),
  );
  return router;
}

/** The human-facing pages (server-rendered HTML, form posts). Errors render as pages, not JSON. */
export function webRouter(ctx: AppContext, search: SearchService): Router {
  const router = Router();
  router.use(canonicalOrigin(ctx));
  // Every page reads the session through this (a signed-in cookie counts only while its server-side session is live).
  router.use(loadSession(ctx));
  const forms = express.urlencoded({ extended: false, limit: '16kb', parameterLimit: 20 });
  router.use(FORM_PATHS, forms, rejectNulInBody);
  router.use(assetsRouter());
  // Every page and form is a declaration of the kit (src/web/kit); the viewer last: its `/{drive_id}/…` declarations
  // pass anything that is not a drive id on.
  const declarations: Declaration[] = [
    ...authPages,
    ...emailPages,
    ...resetPages,
    ...claimPages,
    ...connectedAppsPages,
    ...dashboardPages,
    ...oauthConsentPages,
    ...apiKeyForms,
    ...drivePages,
    ...runsPages,
    ...sharingPages,
    ...fileActions,
    ...searchPages(search),
    ...sharePages,
    ...viewerPages,
  ];
  mount(ctx, router, declarations);

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
  router.use(((err, req, res, next) =>
    PAGE_PATH.test(req.path) ? pageErrors(err, req, res, next) : next(err)) as ErrorRequestHandler);
  return router;
}
