import { disconnectApp, listConnectedApps } from '../identity/connected-apps.js';
import { confirmButton } from './confirm.js';
import { driveContents, timeTag } from './format.js';
import { html, rowsOr } from './html.js';
import { go, show } from './kit/call.js';
import { form, page, type Declaration } from './kit/declare.js';
import { flashNotice } from './owner/notice.js';

/** Where access given on the consent page is taken back (the consent page links here). */
export const CONNECTED_APPS_PATH = '/settings/apps';

/**
 * Connected apps: the MCP clients the signed-in person let into their drives (src/identity/connected-apps.ts), each
 * with what it may do and a Disconnect that asks first. Account-wide: every drive the person owns.
 */
export const connectedAppsPages: Declaration[] = [
  page({ path: CONNECTED_APPS_PATH, who: 'signed_in' }, async (c) => {
    const csrf = c.session.csrf;
    const rows = (await listConnectedApps(c.ctx, c.session.uid)).map(
      (a) =>
        html`<tr data-testid="connected-app">
          <td class="name"><strong>${a.name}</strong></td>
          <td>${a.readOnly ? 'Read only' : 'Read and write'}</td>
          <td class="hide-narrow">${driveContents(a.drive)}</td>
          <td class="hide-narrow">${timeTag(a.connectedAt)}</td>
          <td class="actions-cell">
            ${confirmButton({
              label: 'Disconnect',
              question: `Disconnect ${a.name}? It stops working at once and has to ask you again to reconnect.`,
              action: `${CONNECTED_APPS_PATH}/${a.grantId}/disconnect`,
              csrf,
              confirm: 'Yes, disconnect',
            })}
          </td>
        </tr>`,
    );
    return show(
      'Connected apps',
      html`${flashNotice(c.flash(), csrf, CONNECTED_APPS_PATH)}
        <p class="muted">
          Apps you let into your drive from their sign-in page (MCP clients such as Claude or Cursor). API keys are on
          <a href="/settings/api-keys">API keys</a>.
        </p>
        <div class="scroll">
          <table data-testid="connected-apps" class="files">
            <thead>
              <tr>
                <th>App</th>
                <th>Access</th>
                <th class="hide-narrow">Drive</th>
                <th class="hide-narrow">Connected</th>
                <th>Actions</th>
              </tr>
            </thead>
            <tbody>
              ${rowsOr(rows, 5, 'No app is connected.')}
            </tbody>
          </table>
        </div>`,
      200,
      { layout: 'app' },
    );
  }),

  form(
    { path: `${CONNECTED_APPS_PATH}/:grantId/disconnect`, who: 'signed_in', back: CONNECTED_APPS_PATH },
    async (c) => {
      const { name } = await disconnectApp(c.ctx, c.session.uid, String(c.req.params.grantId));
      return go(CONNECTED_APPS_PATH, { notice: `Disconnected ${name}.` });
    },
  ),
];
