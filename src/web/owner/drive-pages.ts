import { Router } from 'express';
import type { AppContext } from '../../platform/context.js';
import { retentionDays } from '../../lib/config.js';
import { deleteDrive, driveTrash, restoreDrive } from '../../drives/drive-deletion.js';
import { driveOverview } from '../../drives/drives.js';
import { restoreArtifact, deleteArtifact } from '../../files/trash.js';
import { AppError } from '../../lib/errors.js';
import { setDriveSettings } from '../../drives/wiki-switch.js';
import { mintOwnerApiKey, ownedDrivesWithKeys, revokeOwnerApiKey } from '../../identity/accounts.js';
import { csrfField, html, shortTime } from '../html.js';
import { takeFlash, writeFlash } from '../session.js';
import { field, ownerOf, ownerPage, ownerPost } from './owner-request.js';

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
          ${
            rows.length
              ? rows
              : html`<tr>
                  <td colspan="4" class="muted">The trash is empty.</td>
                </tr>`
          }
        </tbody>
      </table>`,
    );
  });

  router.post('/trash/:artId/restore', async (req, res) => {
    const o = ownerPost(ctx, req, res);
    if (!o) return;
    try {
      const a = await restoreArtifact(o.rc, { artId: String(req.params.artId), overwrite: false });
      res.redirect(303, `/${a.drive_id}/${a.path.split('/').map(encodeURIComponent).join('/')}`);
    } catch (err) {
      if (!(err instanceof AppError) || err.status >= 500) throw err;
      ownerPage(
        ctx,
        req,
        res,
        'Could not restore',
        html`<p class="error">${err.message}</p>
          <p><a href="/trash">Back to the trash</a></p>`,
        err.status,
      );
    }
  });

  router.post('/files/delete', async (req, res) => {
    const o = ownerPost(ctx, req, res);
    if (!o) return;
    await deleteArtifact(o.rc, { artId: field(req.body, 'art_id') });
    res.redirect(303, '/trash');
  });

  router.get('/settings/api-keys', async (req, res) => {
    const o = ownerOf(ctx, req, res);
    if (!o) return;
    const flash = takeFlash(ctx.config, req, res, '/settings/api-keys');
    const drive = (await ownedDrivesWithKeys(ctx, o.session.uid)).find((d) => d.drive.id === o.session.drv);
    const rows = (drive?.keys ?? []).map(
      (k) =>
        html`<tr>
          <td><code>${k.prefix}…</code></td>
          <td>${k.label ?? ''}</td>
          <td class="muted">${when(k.createdAt)}</td>
          <td>
            ${
              k.revokedAt
                ? html`revoked ${when(k.revokedAt)}`
                : html`<form class="inline" method="post" action="/settings/api-keys/${k.id}/revoke">
                    ${csrfField(o.session.csrf)} <button type="submit" class="danger">Revoke</button>
                  </form>`
            }
          </td>
        </tr>`,
    );
    ownerPage(
      ctx,
      req,
      res,
      'API keys',
      html` ${
        flash?.key
          ? html`<div class="ok" role="status">
                <p>New API key. Copy it now: it is shown only once.</p>
                <p class="secret" data-testid="new-api-key">${flash.key}</p>
              </div>`
          : ''
      }
        <table>
          <thead>
            <tr>
              <th>Key</th>
              <th>Label</th>
              <th>Created</th>
              <th></th>
            </tr>
          </thead>
          <tbody>
            ${rows}
          </tbody>
        </table>
        <form method="post" action="/settings/api-keys">
          ${csrfField(o.session.csrf)} <label>Label <input type="text" name="label" maxlength="64" /></label
          ><button type="submit">Mint API key</button>
        </form>`,
    );
  });

  router.post('/settings/api-keys', async (req, res) => {
    const o = ownerPost(ctx, req, res);
    if (!o) return;
    const label = field(req.body, 'label').trim().slice(0, 64) || null;
    const minted = await mintOwnerApiKey(ctx, o.session.uid, o.session.drv, label);
    if (minted) writeFlash(ctx.config, res, '/settings/api-keys', { key: minted.key });
    res.redirect(303, '/settings/api-keys');
  });

  router.post('/settings/api-keys/:keyId/revoke', async (req, res) => {
    const o = ownerPost(ctx, req, res);
    if (!o) return;
    await revokeOwnerApiKey(ctx, o.session.uid, o.session.drv, String(req.params.keyId));
    res.redirect(303, '/settings/api-keys');
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
        </form>`,
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
    ownerPage(
      ctx,
      req,
      res,
      'Danger zone',
      html` <p>
          Deleting the drive puts it in the trash for ${retentionDays(ctx.config)} days; you can restore it here until
          then.
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
    try {
      if (req.params.action === 'delete') {
        if (field(req.body, 'confirm') !== o.session.drv)
          throw new AppError('VALIDATION_ERROR', 'the confirmation does not match the drive id');
        await deleteDrive(o.rc, o.session.drv);
      } else await restoreDrive(o.rc, o.session.drv);
      ownerPage(
        ctx,
        req,
        res,
        'Danger zone',
        html`<p class="ok" role="status">
            Drive ${req.params.action === 'delete' ? 'deleted (in the trash)' : 'restored'}.
          </p>
          <p><a href="/settings/danger">Back</a></p>`,
      );
    } catch (err) {
      if (!(err instanceof AppError) || err.status >= 500) throw err;
      ownerPage(
        ctx,
        req,
        res,
        'Danger zone',
        html`<p class="error">${err.message}</p>
          <p><a href="/settings/danger">Back</a></p>`,
        err.status,
      );
    }
  });

  return router;
}
