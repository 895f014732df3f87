import type { Request, Response } from 'express';
import type { AppContext } from '../../platform/context.js';
import type { AppError } from '../../lib/errors.js';
import { loginUrl } from '../format.js';
import { html, sendPage } from '../html.js';
import { navFor } from '../nav.js';
import { readSession, writeFlash } from '../session.js';
import { SENT, show, type Answer, type BaseCall } from './call.js';

/** Sends what a handler returned: a page in its layout, or a redirect carrying its one-time notice. */
export function renderAnswer(call: BaseCall, a: Answer, layout: 'app' | 'plain'): void {
  const { ctx, res } = call;
  if (a.kind === 'sent') return;
  if (a.kind === 'redirect') {
    if (a.flash) writeFlash(ctx.config, res, a.to.split(/[?#]/)[0], a.flash);
    return res.redirect(a.status, a.to);
  }
  const { layout: own, ...opts } = a.opts ?? {};
  if ((own ?? layout) === 'plain') return sendPage(res, a.title, a.body, a.status, opts);
  sendPage(res, a.title, a.body, a.status, { wide: true, nav: call.nav(), ...opts });
}

/**
 * A domain refusal as a page: what the domain said, its code and a way back (headers such as Retry-After kept); for
 * the viewer's pages, the not-found page (existence never leaks).
 */
export function refusalPage(
  call: BaseCall,
  err: AppError,
  mode: 'page' | 'not_found',
  title = 'That did not work',
  back?: string,
): Answer {
  if (mode === 'not_found') {
    notFoundPage(call.ctx, call.req, call.res);
    return SENT;
  }
  for (const [name, value] of Object.entries(err.headers)) call.res.setHeader(name, value);
  return show(
    title,
    html`<p class="notice error" role="alert">${err.message} <span class="muted">(${err.code})</span></p>
      ${back ? html`<p><a href="${back}">Back</a></p>` : ''}`,
    err.status,
  );
}

export function notFoundPage(ctx: AppContext, req: Request, res: Response): void {
  let signedIn = false;
  try {
    signedIn = !!readSession(req)?.uid;
  } catch {
    signedIn = false;
  }
  // Signed out (or the session expired): signing in may be all it takes, and it comes back here.
  const signIn = signedIn
    ? ''
    : html`<p>
        <a class="button primary" href="${loginUrl(req.originalUrl)}" data-testid="sign-in-here">Sign in to see it</a>
      </p>`;
  sendPage(
    res,
    'Not found',
    html`<p>
        There is nothing here, or you cannot see it. If someone sent you this address, they may need to share it with
        you.
      </p>
      ${signIn}`,
    404,
    { wide: true, nav: navFor(ctx.config, req) },
  );
}
