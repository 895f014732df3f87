import { Router } from 'express';
import type { AppContext } from '../../platform/context.js';
import { retentionDays } from '../../lib/config.js';
import { deleteDrive, restoreDrive } from '../../drives/drive-deletion.js';
import { driveTrash } from '../../files/drive-trash.js';
import { driveOverview } from '../../drives/drives.js';
import { restoreArtifact } from '../../files/trash.js';
import { AppError } from '../../lib/errors.js';
import { setDriveSettings } from '../../drives/wiki-switch.js';
import { ownedDrivesWithKeys } from '../../identity/accounts.js';
import { csrfField, html, shortTime, rowsOr } from '../html.js';
import { takeFlash, writeFlash } from '../session.js';
import { safeBack } from '../format.js';
import { keysSection } from './api-keys.js';
import { flashNotice } from './notice.js';
import { chargeWriteOrRefuse } from '../../platform/rate-limits.js';
import { attempt, field, ownerOf, ownerPage, ownerPost } from './owner-request.js';

/**
 * The owner's drive pages: trash (restore), delete a file, API keys (mint shown once through a
 * flash, so a reload never mints again; revoke), settings (wiki indexing) and the danger zone
 * (delete and restore the drive). Each calls one domain operation as the signed-in drive.
 */
const when = shortTime;

export function drivePagesRouter(ctx: AppContext): Router {
  const router = Router();

  router.get('/trash', async (req, res) => {
    const o = ownerOf(ctx, req, res);
    if (!o) return;
    const { items } = await driveTrash(o.rc, o.session.drv, { limit: 200 });
    const rows = items.map((a) => {
      const id = a.id;
      return html`<tr>
        <td>${a.path}</td>
        <td class="muted">deleted ${when(a.deleted_at)}</td>
        <td class="muted">purged ${when(a.purge_at)}</td>
        <td>
          <form class="inline" method="post" action="/trash/${id}/restore">
            ${csrfField(o.session.csrf)}<button type="submit">Restore</button>
          </form>
        </td>
      </tr>`;
    });
    ownerPage(
      ctx,
      req,
      res,
      'Trash',
      html`<table data-testid="trash">
        <thead>
          <tr>
            <th>Path</th>
            <th></th>
            <th></th>
            <th></th>
          </tr>
        </thead>
        <tbody>
          ${rowsOr(rows, 4, 'The trash is empty.')}
        </tbody>
      </table>`,
    );
  });

  router.post('/trash/:artId/restore', async (req, res) => {
    const o = ownerPost(ctx, req, res);
    if (!o) return;
    await attempt(
      ctx,
      req,
      res,
      '/trash',
      async () => {
        await chargeWriteOrRefuse(ctx, o.rc.principal);
        const a = await restoreArtifact(o.rc, { artId: String(req.params.artId), overwrite: false });
        // Undo on a folder or file page goes back there; the trash page opens the restored file.
        const back = field(req.body, 'back');
        if (back) {
          writeFlash(ctx.config, res, safeBack(back, '/trash').split('?')[0], { notice: `Restored ${a.path}.` });
          return res.redirect(303, safeBack(back, '/trash'));
        }
        res.redirect(303, `/${a.drive_id}/${a.path.split('/').map(encodeURIComponent).join('/')}`);
      },
      'Could not restore',
    );
  });

  router.get('/settings/api-keys', async (req, res) => {
    const o = ownerOf(ctx, req, res);
    if (!o) return;
    const flash = takeFlash(ctx.config, req, res, '/settings/api-keys');
    const drive = (await ownedDrivesWithKeys(ctx, o.session.uid)).find((d) => d.drive.id === o.session.drv);
    ownerPage(
      ctx,
      req,
      res,
      'API keys',
      html`<p>Agents and scripts use an API key as a bearer token on <code>/v0</code> and MCP.</p>
        ${keysSection(o.session.csrf, o.session.drv, drive?.keys ?? [], '/settings/api-keys', flash?.key)}`,
    );
  });

  router.get('/settings', async (req, res) => {
    const o = ownerOf(ctx, req, res);
    if (!o) return;
    const on = (await driveOverview(o.rc)).wikiIndexing;
    ownerPage(
      ctx,
      req,
      res,
      'Settings',
      html` <h2>Wiki indexing</h2>
        <p>
          When on, up to the first 120,000 characters of each text artifact are sent to a language model to build your
          drive's wiki. When off, no artifact content is sent out.
        </p>
        <p data-testid="wiki-state">Wiki indexing is <strong>${on ? 'on' : 'off'}</strong>.</p>
        <form method="post" action="/settings/wiki">
          ${csrfField(o.session.csrf)}<input type="hidden" name="wiki_indexing" value="${on ? 'off' : 'on'}" />
          <button type="submit">${on ? 'Turn wiki indexing off' : 'Turn wiki indexing on'}</button>
        </form>
        <h2>Sessions</h2>
        <p>Signed in somewhere you no longer use? This ends every session of your account, this one included.</p>
        <form method="post" action="/auth/logout-everywhere">
          ${csrfField(o.session.csrf)}<button type="submit" class="danger">Sign out everywhere</button>
        </form>
        <h2>More</h2>
        <p><a href="/settings/sharing">Sharing by path or id</a> · <a href="/settings/danger">Danger zone</a></p>`,
    );
  });

  router.post('/settings/wiki', async (req, res) => {
    const o = ownerPost(ctx, req, res);
    if (!o) return;
    await setDriveSettings(o.rc, { wiki_indexing: field(req.body, 'wiki_indexing') === 'on' });
    res.redirect(303, '/settings');
  });

  router.get('/settings/danger', async (req, res) => {
    const o = ownerOf(ctx, req, res);
    if (!o) return;
    const flash = takeFlash(ctx.config, req, res, '/settings/danger');
    ownerPage(
      ctx,
      req,
      res,
      'Danger zone',
      html`${flashNotice(flash, o.session.csrf, '/settings/danger')}
        <p>
          Deleting the drive puts it in the trash for ${retentionDays(ctx.config)} days; you can
          restore it here until then.
        </p>
        <form method="post" action="/settings/danger/delete">
          ${csrfField(o.session.csrf)}
          <label
            >Type the drive id <code>${o.session.drv}</code> to confirm <input type="text" name="confirm" required
          /></label>
          <button type="submit" class="danger">Delete the drive</button>
        </form>
        <form method="post" action="/settings/danger/restore">
          ${csrfField(o.session.csrf)}<button type="submit">Restore the drive</button>
        </form>`,
    );
  });

  router.post('/settings/danger/:action', async (req, res) => {
    const o = ownerPost(ctx, req, res);
    if (!o) return;
    await attempt(
      ctx,
      req,
      res,
      '/settings/danger',
      async () => {
        if (req.params.action === 'delete') {
          if (field(req.body, 'confirm') !== o.session.drv)
            throw new AppError('VALIDATION_ERROR', 'the confirmation does not match the drive id');
          await deleteDrive(o.rc, o.session.drv);
        } else await restoreDrive(o.rc, o.session.drv);
        writeFlash(ctx.config, res, '/settings/danger', {
          notice: `Drive ${req.params.action === 'delete' ? 'deleted (in the trash)' : 'restored'}.`,
        });
        res.redirect(303, '/settings/danger');
      },
      'Danger zone',
    );
  });

  return router;
}
