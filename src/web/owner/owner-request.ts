import type { Request, Response } from 'express';
import type { AppContext } from '../../platform/context.js';
import { AppError } from '../../lib/errors.js';
import { webRequestContext, webSessionPrincipal } from '../../identity/web-principal.js';
import type { RequestContext } from '../../platform/request-context.js';
import { loginUrl } from '../auth-pages.js';
import { html, sendPage, type Html } from '../html.js';
import { safeBack } from '../format.js';
import { navFor } from '../nav.js';
import { csrfValid, readSession, type Session } from '../session.js';

/**
 * The owner's pages act as the signed-in session's drive (src/identity/web-principal.ts). A page
 * needs a signed-in session with a drive; a form post also needs the session's CSRF token (spec 5.11).
 */
export interface Owner {
  session: Session & { uid: string; drv: string };
  rc: RequestContext;
}

export function ownerOf(ctx: AppContext, req: Request, res: Response): Owner | undefined {
  const session = readSession(req);
  if (!session?.uid) {
    // Signed out or expired: sign in, then back where the person was (a form's page, not the URL it posts to).
    const where =
      req.method === 'GET' || req.method === 'HEAD' ? req.originalUrl : safeBack(field(req.body, 'back'), '/dashboard');
    res.redirect(303, loginUrl(where));
    return undefined;
  }
  if (!session.drv) {
    ownerPage(
      ctx,
      req,
      res,
      'No drive',
      html`<p>You own no drive yet. Approve a claim from your agent to get one.</p>`,
    );
    return undefined;
  }
  const s = { ...session, uid: session.uid, drv: session.drv };
  return { session: s, rc: webRequestContext(ctx, webSessionPrincipal(s.drv, s.uid), String(req.id ?? ''), 'web') };
}

/** A CSRF-checked form post of the signed-in owner; a refused one gets a 403 page. */
export function ownerPost(ctx: AppContext, req: Request, res: Response): Owner | undefined {
  const owner = ownerOf(ctx, req, res);
  if (!owner) return undefined;
  if (!csrfValid(owner.session, req.body?.csrf)) {
    ownerPage(
      ctx,
      req,
      res,
      'Form expired',
      html`<p class="error">Your form expired or did not come from this site. Go back, reload and try again.</p>`,
      403,
    );
    return undefined;
  }
  return owner;
}

export function ownerPage(ctx: AppContext, req: Request, res: Response, title: string, body: Html, status = 200): void {
  sendPage(res, title, body, status, { wide: true, nav: navFor(ctx.config, req) });
}

export const field = (body: unknown, name: string): string => {
  const v = (body as Record<string, unknown> | undefined)?.[name];
  return typeof v === 'string' ? v : '';
};

/**
 * Runs an owner's write; a refusal by the domain (4xx) becomes a page saying why, with its code and a way back to
 * where the person was. Anything else is the page errors' 500.
 */
export async function attempt(
  ctx: AppContext,
  req: Request,
  res: Response,
  back: string,
  fn: () => Promise<void>,
  title = 'That did not work',
): Promise<void> {
  try {
    await fn();
  } catch (err) {
    if (!(err instanceof AppError) || err.status >= 500) throw err;
    ownerPage(
      ctx,
      req,
      res,
      title,
      html`<p class="notice error" role="alert">${err.message} <span class="muted">(${err.code})</span></p>
        <p><a href="${back}">Back</a></p>`,
      err.status,
    );
  }
}
