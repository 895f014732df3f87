import { Router, type Request, type Response } from 'express';
import type { AppContext } from '../../platform/context.js';
import { getArtifact, getArtifactAt } from '../../files/artifacts.js';
import { listArtifacts } from '../../files/artifact-listing.js';
import { artifactContent } from '../../files/content.js';
import { readFolder, readFolderAt } from '../../files/folders.js';
import { listVersions } from '../../files/versions.js';
import { AppError, errorEnvelope } from '../../lib/errors.js';
import type { RequestContext } from '../../platform/request-context.js';
import { artifactUrl } from '../../shapes/artifacts.js';
import { html, sendPage } from '../html.js';
import { navFor } from '../nav.js';
import { visitorContext } from './access.js';
import { sendArtifactPage, sendRaw } from './artifact-page.js';
import { sendFolderPage } from './folder-page.js';

/**
 * The viewer (REFERENCE "Web viewer URL scheme"): `/{drive_id}/{path}`, `/a/{art_id}` (302 to the
 * path, forwarding only raw and download), `/a/{art_id}/head`, `/f/{fld_id}`. Every access asks
 * the domain with the visitor's RequestContext (src/web/viewer/access.ts), so the one rule
 * decides; whatever the visitor may not read is the same 404 as what does not exist.
 */
const isNotFound = (err: unknown) => err instanceof AppError && err.status < 500;

export function notFoundPage(ctx: AppContext, req: Request, res: Response): void {
  sendPage(res, 'Not found', html`<p>There is nothing here, or you cannot see it.</p>`, 404, {
    wide: true,
    nav: navFor(ctx.config, req),
  });
}

const flag = (v: unknown) => v === '1' || v === 'true';
const versionParam = (v: unknown) => (typeof v === 'string' && /^[1-9]\d{0,8}$/.test(v) ? Number(v) : undefined);

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

async function viewPath(
  ctx: AppContext,
  rc: RequestContext,
  req: Request,
  res: Response,
  driveId: string,
  path: string,
): Promise<void> {
  const nav = navFor(ctx.config, req);
  const base = `${ctx.config.http.webUrl}/${driveId}/`;
  const trimmed = path.replace(/\/+$/, '');
  if (!trimmed) {
    // The drive root: its owner only (a path names no drive for anyone else).
    if (rc.principal.driveId !== driveId) throw new AppError('NOT_FOUND', 'no such folder');
    const { items } = await listArtifacts(rc, { prefix: '', labels: [], limit: 500 });
    return sendFolderPage(res, 'Files', items, base, '', nav);
  }
  if (!path.endsWith('/')) {
    try {
      const a = await getArtifactAt(rc, driveId, trimmed);
      const v = versionParam(req.query.v);
      const blob = await artifactContent(rc, { artId: a.id, versionNumber: v });
      if (flag(req.query.raw) || flag(req.query.download))
        return await sendRaw(ctx, res, blob, flag(req.query.download));
      const versions = (await listVersions(rc, a.id, { limit: 100 })).items;
      const crumbs = crumbsOf(base, trimmed, rc.principal.driveId === driveId);
      return await sendArtifactPage(ctx, res, {
        artifact: a,
        blob,
        selfUrl: `${base}${encodePath(trimmed)}`,
        versions,
        nav,
        crumbs,
      });
    } catch (err) {
      if (!(err instanceof AppError && err.code === 'ARTIFACT_NOT_FOUND')) throw err;
    }
  }
  const folder = await readFolderAt(rc, driveId, trimmed);
  const { items } = await listArtifacts(rc, { prefix: '', labels: [], limit: 500, folderId: folder.id });
  sendFolderPage(
    res,
    `${folder.path}/`,
    items,
    `${base}${encodePath(folder.path)}/`,
    `${folder.path}/`,
    nav,
    crumbsOf(base, folder.path, rc.principal.driveId === driveId),
  );
}

export const encodePath = (p: string) => p.split('/').map(encodeURIComponent).join('/');

function crumbsOf(base: string, path: string, owner: boolean) {
  const parts = path.split('/').slice(0, -1);
  const links = parts.map((p, i) => html` / <a href="${base}${encodePath(parts.slice(0, i + 1).join('/'))}/">${p}</a>`);
  return html`<p class="muted">${owner ? html`<a href="${base}">Files</a>` : 'Drive'}${links}</p>`;
}
