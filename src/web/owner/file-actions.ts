import busboy from 'busboy';
import { Router, type Request, type Response } from 'express';
import type { AppContext } from '../../platform/context.js';
import { uploadArtifact } from '../../files/artifacts.js';
import { createFolder } from '../../files/folders.js';
import { nameBatch } from '../../files/file-names.js';
import { copyByRef, deleteByRef, moveByRef, restoreByRef } from '../../files/ref-writes.js';
import { AppError } from '../../lib/errors.js';
import { chargeWriteOrRefuse } from '../../platform/rate-limits.js';
import { encodePath, safeBack } from '../format.js';
import { html } from '../html.js';
import { csrfValid, writeFlash } from '../session.js';
import { attempt, field, ownerOf, ownerPage, ownerPost, type Owner } from './owner-request.js';

/**
 * Managing files from the folder and file pages, each a CSRF-checked form answered with 303 to a page (POST → 303 →
 * GET): upload (multipart, several files), new folder, rename and move (one form action: a new path), copy, delete
 * (to the trash, with an Undo on the next page). Every write is charged to the write budget, as on /v0, and is the
 * same domain operation REST and MCP call, so the rules and errors are theirs.
 */
export const UPLOAD_MAX_FILES = 20;

const folderUrl = (drv: string, path: string) => `/${drv}/${path ? `${encodePath(path)}/` : ''}`;
const join = (folder: string, name: string) => [folder.replace(/^\/+|\/+$/g, ''), name].filter(Boolean).join('/');

function pageWithFlash(ctx: AppContext, res: Response, back: string, flash: Record<string, string>) {
  writeFlash(ctx.config, res, back.split('?')[0], flash);
  res.redirect(303, back);
}

export function fileActionsRouter(ctx: AppContext): Router {
  const router = Router();
  const backOf = (o: Owner, req: Request) => safeBack(field(req.body, 'back'), folderUrl(o.session.drv, ''));

  router.post('/files/upload', (req, res, next) => {
    const o = ownerOf(ctx, req, res);
    if (!o) return req.resume();
    let bb: busboy.Busboy;
    try {
      bb = busboy({
        headers: req.headers,
        limits: {
          files: UPLOAD_MAX_FILES,
          fields: 10,
          fieldSize: 4096,
          fileSize: ctx.config.limits.maxUploadBytes + 1,
        },
        // Browsers send the file name as UTF-8 (résumé.md), not busboy's default latin1.
        defParamCharset: 'utf8',
      });
    } catch {
      return void ownerPage(ctx, req, res, 'Upload', html`<p class="error">The upload could not be read.</p>`, 400);
    }
    const fields: Record<string, string> = {};
    const uploaded: string[] = [];
    const mappedNames: string[] = [];
    const mapName = nameBatch();
    let refused: 'csrf' | AppError | undefined;
    let chain = Promise.resolve();
    bb.on('field', (name, value) => (fields[name] = value));
    bb.on('filesLimit', () => {
      refused ??= new AppError(
        'VALIDATION_ERROR',
        `at most ${UPLOAD_MAX_FILES} files at once; the rest were not uploaded`,
      );
    });
    bb.on('file', (_name, stream, info) => {
      chain = chain.then(async () => {
        if (refused || !info.filename) return void stream.resume();
        if (!csrfValid(o.session, fields.csrf)) {
          refused = 'csrf';
          return void stream.resume();
        }
        // A file page's "New version" names the file; otherwise the browser's file name does, through the name rule
        // (src/files/file-names.ts), and the original name is kept.
        const given = fields.name || info.filename.replace(/^.*[\\/]/, '');
        const named = mapName(given);
        const path = join(fields.folder ?? '', named.path);
        try {
          await chargeWriteOrRefuse(ctx, o.rc.principal);
          const type = info.mimeType && info.mimeType !== 'application/octet-stream' ? info.mimeType : undefined;
          const filename = named.mapped && !fields.name ? given : undefined;
          await uploadArtifact(o.rc, { path, contentType: type, filename }, { stream });
          uploaded.push(path);
          if (filename) mappedNames.push(`${given} → ${named.path}`);
        } catch (err) {
          stream.resume();
          if (!(err instanceof AppError) || err.status >= 500) throw err;
          refused = err;
        }
      });
    });
    bb.on('close', () => {
      chain
        .then(() => {
          const back = safeBack(fields.back, folderUrl(o.session.drv, fields.folder ?? ''));
          if (refused === 'csrf' || !csrfValid(o.session, fields.csrf))
            return ownerPage(
              ctx,
              req,
              res,
              'Form expired',
              html`<p class="error">Your form expired. Reload and try again.</p>`,
              403,
            );
          if (refused)
            return ownerPage(
              ctx,
              req,
              res,
              'Upload stopped',
              html`<p class="notice error" role="alert">
                  ${uploaded.length ? `Uploaded ${uploaded.join(', ')}; then: ` : ''}${refused.message}
                  <span class="muted">(${refused.code})</span>
                </p>
                <p><a href="${back}">Back</a></p>`,
              refused.status,
            );
          const renamed = mappedNames.length ? ` Renamed for the drive: ${mappedNames.join('; ')}.` : '';
          pageWithFlash(ctx, res, back, {
            notice: `${uploaded.length === 1 ? `Uploaded ${uploaded[0]}.` : `Uploaded ${uploaded.length} files.`}${renamed}`,
          });
        })
        .catch(next);
    });
    bb.on('error', (err) => next(err));
    req.pipe(bb);
  });

  router.post('/files/new-folder', async (req, res) => {
    const o = ownerPost(ctx, req, res);
    if (!o) return;
    const path = join(field(req.body, 'folder'), field(req.body, 'name').trim());
    await attempt(ctx, req, res, backOf(o, req), async () => {
      await chargeWriteOrRefuse(ctx, o.rc.principal);
      const f = await createFolder(o.rc, { path });
      res.redirect(303, folderUrl(o.session.drv, f.path));
    });
  });

  // Rename and move: the item's new path is `folder/name` (a rename keeps the folder, a move keeps the name).
  router.post('/files/move', async (req, res) => {
    const o = ownerPost(ctx, req, res);
    if (!o) return;
    const back = backOf(o, req);
    const to = join(field(req.body, 'folder'), field(req.body, 'name').trim());
    await attempt(ctx, req, res, back, async () => {
      await chargeWriteOrRefuse(ctx, o.rc.principal);
      const moved = await moveByRef(o.rc, { ref: field(req.body, 'ref'), path: to });
      const now = moved.kind === 'artifact' ? moved.artifact.path : moved.folder.path;
      if (field(req.body, 'follow') === '1')
        return res.redirect(
          303,
          moved.kind === 'artifact' ? `/${o.session.drv}/${encodePath(now)}` : folderUrl(o.session.drv, now),
        );
      pageWithFlash(ctx, res, back, { notice: `Moved to ${now}.` });
    });
  });

  router.post('/files/copy', async (req, res) => {
    const o = ownerPost(ctx, req, res);
    if (!o) return;
    const back = backOf(o, req);
    await attempt(ctx, req, res, back, async () => {
      await chargeWriteOrRefuse(ctx, o.rc.principal);
      const { copy } = await copyByRef(o.rc, { ref: field(req.body, 'ref'), path: field(req.body, 'to').trim() });
      pageWithFlash(ctx, res, back, { notice: `Copied to ${copy.path}.` });
    });
  });

  // Restore this version (history page): a new current version holding an earlier one.
  router.post('/files/restore-version', async (req, res) => {
    const o = ownerPost(ctx, req, res);
    if (!o) return;
    const back = backOf(o, req);
    await attempt(ctx, req, res, back, async () => {
      await chargeWriteOrRefuse(ctx, o.rc.principal);
      const version = Number(field(req.body, 'version'));
      if (!Number.isInteger(version) || version < 1) throw new AppError('VALIDATION_ERROR', 'no such version');
      const a = await restoreByRef(o.rc, { ref: field(req.body, 'ref'), overwrite: false, version });
      pageWithFlash(ctx, res, back, { notice: `Restored version ${version} as version ${a.version_number}.` });
    });
  });

  // Delete: to the trash; a file's Undo restores it (a folder's contents wait in the trash).
  router.post('/files/delete', async (req, res) => {
    const o = ownerPost(ctx, req, res);
    if (!o) return;
    const back = backOf(o, req);
    await attempt(ctx, req, res, back, async () => {
      await chargeWriteOrRefuse(ctx, o.rc.principal);
      const ref = field(req.body, 'ref') || field(req.body, 'art_id');
      const gone = await deleteByRef(o.rc, { ref, recursive: true });
      const to = safeBack(field(req.body, 'after'), back);
      if (gone.kind === 'artifact')
        return pageWithFlash(ctx, res, to, {
          notice: `Moved ${gone.artifact.path} to the trash.`,
          undo: gone.artifact.id,
        });
      pageWithFlash(ctx, res, to, {
        notice: `Moved the folder ${gone.folder.folder.path} and ${gone.folder.nArtifactsDeleted} files to the trash.`,
      });
    });
  });

  return router;
}
