import { Router, type Request, type Response } from 'express';
import type { AppContext } from '../../platform/context.js';
import { getArtifact } from '../../files/artifacts.js';
import { readFolder } from '../../files/folders.js';
import { AppError, errorEnvelope } from '../../lib/errors.js';
import { artifactUrl } from '../../shapes/artifacts.js';
import { encodePath } from '../format.js';
import { html, sendPage } from '../html.js';
import { navFor } from '../nav.js';
import { loginUrl } from '../auth-pages.js';
import { readSession } from '../session.js';
import { visitorContext } from './access.js';
import { viewPath } from './path-view.js';

/**
 * The viewer (REFERENCE "Web viewer URL scheme"): `/{drive_id}/{path}`, `/a/{art_id}` (302 to the
 * path, forwarding only raw and download), `/a/{art_id}/head`, `/f/{fld_id}`. Every access asks
 * the domain with the visitor's RequestContext (src/web/viewer/access.ts), so the one rule
 * decides; whatever the visitor may not read is the same 404 as what does not exist.
 */
const isNotFound = (err: unknown) => err instanceof AppError && err.status < 500;

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

export function viewerRouter(ctx: AppContext): Router {
  const router = Router();
  const { webUrl } = ctx.config.http;

  router.get('/a/:artId/head', async (req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    try {
      const a = await getArtifact(await visitorContext(ctx, req), String(req.params.artId));
      res.json({ version: a.version_number });
    } catch (err) {
      if (!isNotFound(err)) throw err;
      res.status(404).json(errorEnvelope('ARTIFACT_NOT_FOUND', 'no live artifact'));
    }
  });

  router.get('/a/:artId', async (req, res) => {
    try {
      const a = await getArtifact(await visitorContext(ctx, req), String(req.params.artId));
      const forward = new URLSearchParams();
      for (const k of ['raw', 'download']) if (typeof req.query[k] === 'string') forward.set(k, req.query[k]);
      const qs = forward.toString();
      res.redirect(302, `${artifactUrl(ctx.config, a.drive_id, a.path)}${qs ? `?${qs}` : ''}`);
    } catch (err) {
      if (!isNotFound(err)) throw err;
      notFoundPage(ctx, req, res);
    }
  });

  router.get('/f/:fldId', async (req, res) => {
    try {
      const f = await readFolder(await visitorContext(ctx, req), { id: String(req.params.fldId) });
      res.redirect(302, `${webUrl}/${f.drive_id}/${f.path}/`);
    } catch (err) {
      if (!isNotFound(err)) throw err;
      notFoundPage(ctx, req, res);
    }
  });

  router.get('/:driveId{/*rest}', async (req, res, next) => {
    const driveId = String(req.params.driveId);
    if (!/^drv_[\w-]+$/.test(driveId)) return next();
    let path: string;
    try {
      path = decodeURIComponent(req.path.slice(driveId.length + 2));
    } catch {
      return notFoundPage(ctx, req, res);
    }
    const rc = await visitorContext(ctx, req);
    try {
      await viewPath(ctx, rc, req, res, driveId, path);
    } catch (err) {
      if (!isNotFound(err)) throw err;
      notFoundPage(ctx, req, res);
    }
  });

  return router;
}

export { encodePath };
