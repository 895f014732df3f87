import { Router, type Request, type Response } from 'express';
import type { AppContext } from '../../platform/context.js';
import { blobOfRow } from '../../files/content.js';
import { AppError } from '../../lib/errors.js';
import { listSharedFolder, sharedArtifactAt } from '../../sharing/share-contents.js';
import { redeemShare, SHARE_UNLOCK_TTL_S, type Redemption } from '../../sharing/shares.js';
import { csrfField, html, sendPage } from '../html.js';
import { navFor } from '../nav.js';
import { csrfValid, ensureSession, readCookie, readSession } from '../session.js';
import { sendArtifactPage, sendRaw } from './artifact-page.js';
import { groupListing, sendFolderPage } from './folder-page.js';
import { encodePath, notFoundPage } from './routes.js';

const UNLOCK_COOKIE = 'ad_share_unlock';
/** A path below a shared folder that is no file may be a folder: the domain's 404 says "try the folder". */
const absentAsUndefined = (err: unknown) => {
  if (err instanceof AppError && err.status === 404) return undefined;
  throw err;
};

/**
 * `/s/{share_key}` (GET; POST with the form field `password`, answered 303 to the GET with an unlock cookie scoped
 * to the link's path, so raw and download work after one correct password): redeems the link through the sharing
 * module (exactly its role on exactly its resource) and shows the artifact, or the shared folder,
 * whose files are at `/s/{share_key}/{path below the folder}`. A dead, rotated or revoked key is 404.
 */
export function sharePageRouter(ctx: AppContext): Router {
  const router = Router();

  const serve = async (req: Request, res: Response, password: string | null) => {
    const key = String(req.params.key);
    const rest = Array.isArray(req.params.rest) ? (req.params.rest as string[]).join('/') : '';
    let r: Redemption;
    try {
      r = await redeemShare(ctx, key, password, req.ip ?? 'unknown', readCookie(req, UNLOCK_COOKIE));
      if (password !== null) {
        // The right password, once: an unlock for this link (its raw bytes and download too), then back to GET.
        if (r.unlock)
          res.cookie(UNLOCK_COOKIE, r.unlock, {
            httpOnly: true,
            sameSite: 'lax',
            secure: ctx.config.http.webUrl.startsWith('https:'),
            path: `/s/${key}`,
            maxAge: SHARE_UNLOCK_TTL_S * 1000,
          });
        return res.redirect(303, req.originalUrl);
      }
    } catch (err) {
      if (err instanceof AppError && err.code === 'SHARE_PASSWORD_REQUIRED')
        return passwordForm(ctx, req, res, password !== null);
      if (err instanceof AppError && err.code === 'RATE_LIMITED') throw err; // 429 page with Retry-After (src/web/index.ts)
      if (err instanceof AppError && err.status < 500) return notFoundPage(ctx, req, res);
      throw err;
    }
    const nav = navFor(ctx.config, req);
    const self = `${ctx.config.http.webUrl}/s/${encodeURIComponent(key)}`;
    try {
      const sub = rest.replace(/\/+$/, '');
      const artifact =
        r.artifact ??
        (sub && !rest.endsWith('/') ? await sharedArtifactAt(ctx, r, sub).catch(absentAsUndefined) : undefined);
      if (artifact) {
        const blob = blobOfRow(artifact);
        if (req.query.raw === '1' || req.query.download === '1')
          return await sendRaw(ctx, res, blob, req.query.download === '1');
        const selfUrl = r.artifact ? self : `${self}/${encodePath(rest)}`;
        return await sendArtifactPage(ctx, res, {
          artifact,
          blob,
          selfUrl,
          nav,
          crumbs: html`<p class="muted">Shared with you (${r.role})</p>`,
        });
      }
      // The shared folder, or a folder below it (its files are the shared listing's below that path).
      if (!r.folder) return notFoundPage(ctx, req, res);
      const prefix = `${r.folder.path}/${sub ? `${sub}/` : ''}`;
      const items = (await listSharedFolder(ctx, r, 2000)).filter((a) => a.path.startsWith(prefix));
      if (sub && !items.length) return notFoundPage(ctx, req, res);
      const title = prefix.slice(0, -1);
      sendFolderPage(res, {
        title: title.slice(title.lastIndexOf('/') + 1),
        base: `${self}/${sub ? `${encodePath(sub)}/` : ''}`,
        prefix,
        ...groupListing(items, prefix),
        marks: {},
        nav,
        crumbs: html`<p class="muted">Shared folder (${r.role})</p>`,
      });
    } catch (err) {
      if (err instanceof AppError && err.status < 500) return notFoundPage(ctx, req, res);
      throw err;
    }
  };

  router.get('/s/:key{/*rest}', (req, res) => serve(req, res, null));
  router.post('/s/:key{/*rest}', async (req, res) => {
    const session = readSession(req);
    if (!csrfValid(session, req.body?.csrf)) return passwordForm(ctx, req, res, false, 403);
    await serve(req, res, typeof req.body?.password === 'string' ? req.body.password : '');
  });
  return router;
}

function passwordForm(ctx: AppContext, req: Request, res: Response, wrong: boolean, status = 401) {
  const session = ensureSession(ctx.config, req, res);
  sendPage(
    res,
    'This link needs a password',
    html`${wrong ? html`<p class="error">That password is not right.</p>` : ''}
      <form method="post" action="${req.originalUrl.split('?')[0]}">
        ${csrfField(session.csrf)}
        <label>Password <input type="password" name="password" autocomplete="off" required /></label>
        <button type="submit">Open</button>
      </form>`,
    status,
    { nav: navFor(ctx.config, req) },
  );
}
