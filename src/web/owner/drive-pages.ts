import { retentionDays } from '../../lib/config.js';
import { deleteDrive, restoreDrive } from '../../drives/drive-deletion.js';
import { driveTrash } from '../../files/drive-trash.js';
import { driveOverview } from '../../drives/drives.js';
import { restoreArtifact } from '../../files/trash.js';
import { AppError } from '../../lib/errors.js';
import { setDriveSettings } from '../../drives/wiki-switch.js';
import { DRIVE_NAME_MAX } from '../../drives/drive-settings.js';
import { ownedDrivesWithKeys } from '../../identity/accounts.js';
import { csrfField, html, rowsOr } from '../html.js';
import { confirmButton } from '../confirm.js';
import { purgeTrashed } from '../../files/trash-purge.js';
import { dayOf, encodePath, safeBack, timeTag } from '../format.js';
import { go, show } from '../kit/call.js';
import { form, page, type Declaration } from '../kit/declare.js';
import { keysSection } from './api-keys.js';
import { DROP_UPLOAD_PATH } from '../assets.js';
import { flashNotice } from './notice.js';

/**
 * The owner's drive pages: trash (restore), API keys (mint shown once through a flash, so a reload never mints again;
 * revoke), settings (wiki indexing) and the danger zone (delete and restore the drive). Each a declaration of the kit
 * (src/web/kit) around one domain operation as the signed-in drive.
 */
export const drivePages: Declaration[] = [
  page({ path: '/trash', who: 'owner' }, async (c) => {
    const { items } = await driveTrash(c.rc, c.session.drv, { limit: 200 });
    const csrf = c.session.csrf;
    const of = `?drive=${c.session.drv}`; // each form names the drive on screen (another tab may have opened another)
    const deletable = items.filter((a) => !a.pinned_by_snapshot).length;
    const rows = items.map(
      (a) =>
        html`<tr>
          <td class="name">${a.path}</td>
          <td class="hide-narrow">${timeTag(a.deleted_at)}</td>
          ${
            a.pinned_by_snapshot
              ? html`<td>kept while a <a href="/snapshots">snapshot</a> needs it</td>`
              : html`<td>will be deleted on ${dayOf(a.purge_at)}</td>`
          }
          <td class="actions-cell">
            <form class="inline" method="post" action="/trash/${a.id}/restore${of}">
              ${csrfField(csrf)}<button type="submit">Restore</button>
            </form>
            ${
              a.pinned_by_snapshot
                ? ''
                : confirmButton({
                    label: 'Delete forever',
                    question: `Delete ${a.path} and all its versions now? This cannot be undone.`,
                    action: `/trash/${a.id}/purge${of}`,
                    csrf,
                    confirm: 'Yes, delete forever',
                  })
            }
          </td>
        </tr>`,
    );
    return show(
      'Trash',
      html`${flashNotice(c.flash(), csrf, '/trash')}
        <p class="muted">
          Deleted files stay here for ${retentionDays(c.ctx.config)} days, then they are deleted for good.
        </p>
        ${
          deletable
            ? confirmButton({
                label: 'Empty trash',
                question: `Delete ${deletable === 1 ? 'the file' : `all ${deletable} files`} in the trash now? This cannot be undone.`,
                action: `/trash/empty${of}`,
                csrf,
                confirm: 'Yes, empty the trash',
                testId: 'empty-trash',
              })
            : ''
        }
        <div class="scroll">
          <table data-testid="trash" class="files">
            <thead>
              <tr>
                <th>Name</th>
                <th class="hide-narrow">Deleted</th>
                <th>Deleted for good</th>
                <th>Actions</th>
              </tr>
            </thead>
            <tbody>
              ${rowsOr(rows, 4, 'The trash is empty.')}
            </tbody>
          </table>
        </div>`,
    );
  }),

  form(
    { path: '/trash/:artId/purge', who: 'owner', writes: true, back: '/trash', refusalTitle: 'Could not delete' },
    async (c) => {
      await purgeTrashed(c.rc, { artId: String(c.req.params.artId) });
      return go('/trash', { notice: 'Deleted forever.' });
    },
  ),

  form({ path: '/trash/empty', who: 'owner', writes: true, back: '/trash' }, async (c) => {
    const { deleted, kept } = await purgeTrashed(c.rc, { all: true });
    const files = (n: number) => `${n} file${n === 1 ? '' : 's'}`;
    const pinned = kept ? `; ${files(kept)} kept while a snapshot needs ${kept === 1 ? 'it' : 'them'}` : '';
    return go('/trash', { notice: `Emptied the trash (${files(deleted)} deleted forever${pinned}).` });
  }),

  form(
    { path: '/trash/:artId/restore', who: 'owner', writes: true, back: '/trash', refusalTitle: 'Could not restore' },
    async (c) => {
      const a = await restoreArtifact(c.rc, { artId: String(c.req.params.artId), overwrite: false });
      // Undo on a folder or file page goes back there; the trash page opens the restored file.
      if (c.field('back')) return go(safeBack(c.field('back'), '/trash'), { notice: `Restored ${a.path}.` });
      return go(`/${a.drive_id}/${encodePath(a.path)}`);
    },
  ),

  page({ path: '/settings/api-keys', who: 'owner' }, async (c) => {
    const flash = c.flash();
    const drive = (await ownedDrivesWithKeys(c.ctx, c.session.uid)).find((d) => d.drive.id === c.session.drv);
    return show(
      'API keys',
      html`<p>Agents and scripts use an API key as a bearer token on <code>/v0</code> and MCP.</p>
        ${keysSection(
          c.session.csrf,
          c.session.drv,
          drive?.keys ?? [],
          '/settings/api-keys',
          flash?.key,
          c.ctx.config.http.baseUrl,
        )}`,
      200,
      { script: DROP_UPLOAD_PATH },
    );
  }),

  page({ path: '/settings', who: 'owner' }, async (c) => {
    const drive = await driveOverview(c.rc);
    const on = drive.wikiIndexing;
    const csrf = html`${csrfField(c.session.csrf)}<input type="hidden" name="drive" value="${drive.id}" />`;
    return show(
      'Settings',
      html` ${flashNotice(c.flash(), c.session.csrf, `/settings?drive=${drive.id}`)}
        <h2>Drive name</h2>
        <p>How this drive (<code>${drive.id}</code>) is shown in the drive switcher and on every page.</p>
        <form method="post" action="/settings/name" data-testid="drive-name-form">
          ${csrf}<label for="drive-name">Name</label>
          <input id="drive-name" type="text" name="name" value="${drive.name ?? ''}" maxlength="${DRIVE_NAME_MAX}" />
          <button type="submit">Save name</button>
        </form>
        <h2>Wiki indexing</h2>
        <p>
          When on, up to the first 120,000 characters of each text artifact are sent to a language model to build your
          drive's wiki. When off, no artifact content is sent out.
        </p>
        <p data-testid="wiki-state">Wiki indexing is <strong>${on ? 'on' : 'off'}</strong>.</p>
        <form method="post" action="/settings/wiki">
          ${csrf}<input type="hidden" name="wiki_indexing" value="${on ? 'off' : 'on'}" />
          <button type="submit">${on ? 'Turn wiki indexing off' : 'Turn wiki indexing on'}</button>
        </form>
        <h2>Sessions</h2>
        <p>Signed in somewhere you no longer use? This ends every session of your account, this one included.</p>
        <form method="post" action="/auth/logout-everywhere">
          ${csrfField(c.session.csrf)}<button type="submit" class="danger">Sign out everywhere</button>
        </form>
        <h2>More</h2>
        <p>
          <a href="/settings/apps">Connected apps</a> · <a href="/settings/sharing">Sharing by path or id</a> ·
          <a href="/settings/danger">Danger zone</a>
        </p>`,
    );
  }),

  form({ path: '/settings/wiki', who: 'owner', writes: true, back: '/settings' }, async (c) => {
    await setDriveSettings(c.rc, { settings: { wiki_indexing: c.field('wiki_indexing') === 'on' } });
    return go(`/settings?drive=${c.session.drv}`);
  }),

  form(
    { path: '/settings/name', who: 'owner', writes: true, back: '/settings', refusalTitle: 'Drive name' },
    async (c) => {
      const d = await setDriveSettings(c.rc, { name: c.field('name') });
      return go(`/settings?drive=${d.id}`, {
        notice: d.name ? `This drive is now called “${d.name}”.` : 'Name cleared.',
      });
    },
  ),

  page({ path: '/settings/danger', who: 'owner' }, async (c) => {
    const csrf = c.session.csrf;
    return show(
      'Danger zone',
      html`${flashNotice(c.flash(), csrf, '/settings/danger')}
        <p>
          Deleting the drive puts it in the trash for ${retentionDays(c.ctx.config)} days; you can restore it here until
          then.
        </p>
        <form method="post" action="/settings/danger/delete">
          ${csrfField(csrf)}
          <label
            >Type the drive id <code>${c.session.drv}</code> to confirm <input type="text" name="confirm" required
          /></label>
          <button type="submit" class="danger">Delete the drive</button>
        </form>
        <form method="post" action="/settings/danger/restore">
          ${csrfField(csrf)}<button type="submit">Restore the drive</button>
        </form>`,
    );
  }),

  form(
    { path: '/settings/danger/delete', who: 'owner', back: '/settings/danger', refusalTitle: 'Danger zone' },
    async (c) => {
      if (c.field('confirm') !== c.session.drv)
        throw new AppError('VALIDATION_ERROR', 'the confirmation does not match the drive id');
      await deleteDrive(c.rc, c.session.drv);
      return go('/settings/danger', { notice: 'Drive deleted (in the trash).' });
    },
  ),
  form(
    { path: '/settings/danger/restore', who: 'owner', back: '/settings/danger', refusalTitle: 'Danger zone' },
    async (c) => {
      await restoreDrive(c.rc, c.session.drv);
      return go('/settings/danger', { notice: 'Drive restored.' });
    },
  ),
];
