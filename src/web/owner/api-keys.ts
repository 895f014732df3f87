import { Router, type Request, type Response } from 'express';
import type { AppContext } from '../../platform/context.js';
import { mintOwnerApiKey, revokeOwnerApiKey } from '../../identity/accounts.js';
import { loginUrl } from '../auth-pages.js';
import { safeBack } from '../format.js';
import { csrfField, html, type Html, rowsOr } from '../html.js';
import { timeTag } from '../format.js';
import { csrfValid, readSession, writeFlash } from '../session.js';
import { field, ownerPage } from './owner-request.js';

/**
 * The one API-key flow of the web (the dashboard and the API keys page both show `keysSection` and post here): mint
 * (the key travels to the page in a one-time flash, POST → 303 → GET, so a reload mints nothing and shows nothing),
 * revoke. Each acts on a drive the signed-in account owns (`drive_id`), else 403.
 */
export interface KeyRow {
  id: string;
  prefix: string;
  label?: string | null;
  readOnly?: boolean;
  createdAt: Date;
  revokedAt?: Date | null;
}

export function keysSection(csrf: string, driveId: string, keys: KeyRow[], back: string, newKey?: string): Html {
  const hidden = html`${csrfField(csrf)}<input type="hidden" name="drive_id" value="${driveId}" /><input
      type="hidden"
      name="back"
      value="${back}"
    />`;
  const rows = keys.map(
    (k) =>
      html`<tr>
        <td><code>${k.prefix}…</code></td>
        <td>${k.label ?? ''}</td>
        <td>${k.readOnly ? 'Read only' : 'Read and write'}</td>
        <td class="hide-narrow">${timeTag(k.createdAt)}</td>
        <td>
          ${
            k.revokedAt
              ? html`<span class="muted">revoked ${timeTag(k.revokedAt)}</span>`
              : html`<form class="inline" method="post" action="/settings/api-keys/${k.id}/revoke">
                  ${hidden}<button type="submit" class="danger">Revoke</button>
                </form>`
          }
        </td>
      </tr>`,
  );
  return html`${
    newKey
      ? html`<div class="notice" role="status">
            <p>New API key for <code>${driveId}</code>. Copy it now: it is shown only once.</p>
            <p class="secret" data-testid="new-api-key">${newKey}</p>
          </div>`
      : ''
  }
    <div class="scroll">
      <table>
        <thead>
          <tr>
            <th>Key</th>
            <th>Label</th>
            <th>Access</th>
            <th class="hide-narrow">Created</th>
            <th><span class="visually-hidden">Actions</span></th>
          </tr>
        </thead>
        <tbody>
          ${rowsOr(rows, 5, 'No keys yet.')}
        </tbody>
      </table>
    </div>
    <form method="post" action="/settings/api-keys" class="row">
      ${hidden}<label>Label <input type="text" name="label" maxlength="64" /></label>
      <fieldset>
        <legend>Access</legend>
        <label><input type="radio" name="access" value="read_write" checked /> Read and write</label>
        <label><input type="radio" name="access" value="read" /> Read only</label>
      </fieldset>
      <button type="submit" class="primary">Mint API key</button>
    </form>`;
}

/** The signed-in account of a CSRF-checked key form, or a response already sent. */
function keysPost(ctx: AppContext, req: Request, res: Response) {
  const session = readSession(req);
  const back = safeBack(field(req.body, 'back'), '/settings/api-keys');
  if (!session?.uid) return void res.redirect(303, loginUrl(back));
  if (!csrfValid(session, req.body?.csrf)) {
    ownerPage(ctx, req, res, 'Form expired', html`<p class="error">Your form expired. Reload and try again.</p>`, 403);
    return undefined;
  }
  return { uid: session.uid, driveId: field(req.body, 'drive_id') || session.drv || '', back };
}

const notOwner = (ctx: AppContext, req: Request, res: Response) =>
  ownerPage(ctx, req, res, 'Not your drive', html`<p class="error">You do not own that drive.</p>`, 403);

export function apiKeysRouter(ctx: AppContext): Router {
  const router = Router();
  const mint = async (req: Request, res: Response) => {
    const p = keysPost(ctx, req, res);
    if (!p) return;
    const label = field(req.body, 'label').trim().slice(0, 64) || null;
    const minted = await mintOwnerApiKey(ctx, p.uid, p.driveId, label, field(req.body, 'access') === 'read');
    if (!minted) return notOwner(ctx, req, res);
    writeFlash(ctx.config, res, p.back.split('?')[0], { key: minted.key, key_drive: p.driveId });
    res.redirect(303, p.back);
  };
  const revoke = async (req: Request, res: Response) => {
    const p = keysPost(ctx, req, res);
    if (!p) return;
    const revoked = await revokeOwnerApiKey(ctx, p.uid, p.driveId, String(req.params.keyId));
    if (revoked === 'not_owner') return notOwner(ctx, req, res);
    if (revoked === 'no_such_key')
      return ownerPage(ctx, req, res, 'No such key', html`<p class="error">No such live key on that drive.</p>`, 404);
    res.redirect(303, p.back);
  };
  // The dashboard's former addresses answer with the same flow.
  router.post(['/settings/api-keys', '/dashboard/keys'], mint);
  router.post(['/settings/api-keys/:keyId/revoke', '/dashboard/keys/:keyId/revoke'], revoke);
  return router;
}
