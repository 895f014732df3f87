import { Router, type Request, type Response } from 'express';
import type { AppContext } from '../../platform/context.js';
import { AppError } from '../../lib/errors.js';
import { createGrant, listGrants, revokeGrant } from '../../sharing/grants.js';
import { listShares, mintShare, revokeShare, rotateShare, SHARE_ROLES, type ShareRole } from '../../sharing/shares.js';
import type { Role } from '../../access/authorize.js';
import { shareUrl } from '../../shapes/sharing.js';
import { csrfField, html, shortTime } from '../html.js';
import { takeFlash, writeFlash } from '../session.js';
import { field, ownerOf, ownerPage, ownerPost, type Owner } from './owner-request.js';

/**
 * Sharing, for one resource (an `art_`/`fld_` id or a path of the owner's drive): its live grants
 * (create for a person's email, revoke) and share links (create, rotate, revoke; a new key is shown
 * once, as a link to copy). Every action is the sharing module's own operation.
 */
const PAGE = '/settings/sharing';
const back = (resource: string) => `${PAGE}?resource=${encodeURIComponent(resource)}`;
const when = shortTime;

export function sharingPageRouter(ctx: AppContext): Router {
  const router = Router();

  router.get(PAGE, async (req, res) => {
    const o = ownerOf(ctx, req, res);
    if (!o) return;
    const resource = typeof req.query.resource === 'string' ? req.query.resource.trim() : '';
    const flash = takeFlash(ctx.config, req, res, PAGE);
    const pick = html`<form method="get" action="${PAGE}">
      <label
        >File or folder (path, art_ or fld_ id)
        <input type="text" name="resource" value="${resource}" required /></label
      ><button type="submit">Show sharing</button>
    </form>`;
    if (!resource) return ownerPage(ctx, req, res, 'Sharing', pick);
    let grants, shares;
    try {
      [grants, shares] = await Promise.all([listGrants(o.rc, resource), listShares(o.rc, resource)]);
    } catch (err) {
      if (!(err instanceof AppError) || err.status >= 500) throw err;
      return ownerPage(
        ctx,
        req,
        res,
        'Sharing',
        html`${pick}
          <p class="error">${err.message}</p>`,
        err.status,
      );
    }
    const hidden = html`${csrfField(o.session.csrf)}<input type="hidden" name="resource" value="${resource}" />`;
    const grantRows = grants.map(
      (g) =>
        html`<tr>
          <td>${g.principal_email ?? g.principal_id ?? g.principal_type}</td>
          <td>${g.role}</td>
          <td class="muted">${g.expires_at ? `expires ${when(g.expires_at)}` : ''}</td>
          <td>
            <form class="inline" method="post" action="${PAGE}/grants/${g.id}/revoke">
              ${hidden}<button type="submit" class="danger">Revoke</button>
            </form>
          </td>
        </tr>`,
    );
    const shareRows = shares.map(
      (s) =>
        html`<tr data-testid="share-row">
          <td><code>${s.id}</code></td>
          <td>${s.role}</td>
          <td class="muted">${s.password_hash ? 'password · ' : ''}opened ${Number(s.access_count)}×</td>
          <td>
            <form class="inline" method="post" action="${PAGE}/shares/${s.id}/rotate">
              ${hidden}<button type="submit">Rotate</button>
            </form>
            <form class="inline" method="post" action="${PAGE}/shares/${s.id}/revoke">
              ${hidden}<button type="submit" class="danger">Revoke</button>
            </form>
          </td>
        </tr>`,
    );
    ownerPage(
      ctx,
      req,
      res,
      'Sharing',
      html`${pick}
        ${
          flash?.url
            ? html`<div class="ok" role="status">
                <p>Share link (shown once; copy it now):</p>
                <input type="text" readonly data-testid="new-share-link" value="${flash.url}" />
              </div>`
            : ''
        }
        <h2>People</h2>
        <table>
          <tbody>
            ${
              grantRows.length
                ? grantRows
                : html`<tr>
                    <td class="muted">No grants.</td>
                  </tr>`
            }
          </tbody>
        </table>
        <form method="post" action="${PAGE}/grants">
          ${hidden}<label>Email <input type="email" name="email" required /></label>
          <label
            >Role
            <select name="role">
              ${['viewer', 'commenter', 'editor', 'manager'].map((r) => html`<option>${r}</option>`)}
            </select></label
          >
          <button type="submit">Grant</button>
        </form>
        <h2>Links</h2>
        <table>
          <tbody>
            ${
              shareRows.length
                ? shareRows
                : html`<tr>
                    <td class="muted">No links.</td>
                  </tr>`
            }
          </tbody>
        </table>
        <form method="post" action="${PAGE}/shares">
          ${hidden}
          <label
            >Role
            <select name="role">
              ${SHARE_ROLES.map((r) => html`<option>${r}</option>`)}
            </select></label
          >
          <label>Password (optional) <input type="password" name="password" autocomplete="new-password" /></label>
          <button type="submit">Create link</button>
        </form>`,
    );
  });

  const act = (path: string, fn: (o: Owner, req: Request, resource: string) => Promise<string | void>) =>
    router.post(path, async (req: Request, res: Response) => {
      const o = ownerPost(ctx, req, res);
      if (!o) return;
      const resource = field(req.body, 'resource');
      try {
        const url = await fn(o, req, resource);
        if (url) writeFlash(ctx.config, res, PAGE, { url });
        res.redirect(303, back(resource));
      } catch (err) {
        if (!(err instanceof AppError) || err.status >= 500) throw err;
        ownerPage(
          ctx,
          req,
          res,
          'Sharing',
          html`<p class="error">${err.message}</p>
            <p><a href="${back(resource)}">Back</a></p>`,
          err.status,
        );
      }
    });

  act(`${PAGE}/shares`, async (o, req, resource) => {
    const role = (SHARE_ROLES as readonly string[]).includes(field(req.body, 'role'))
      ? (field(req.body, 'role') as ShareRole)
      : 'viewer';
    const minted = await mintShare(o.rc, { resource, role, password: field(req.body, 'password') || null });
    return shareUrl(ctx.config, minted.key);
  });
  act(`${PAGE}/shares/:id/rotate`, async (o, req) =>
    shareUrl(ctx.config, (await rotateShare(o.rc, String(req.params.id))).key),
  );
  act(`${PAGE}/shares/:id/revoke`, async (o, req) => void (await revokeShare(o.rc, String(req.params.id))));
  act(`${PAGE}/grants`, async (o, req, resource) => {
    const role = (
      ['viewer', 'commenter', 'editor', 'manager'].includes(field(req.body, 'role'))
        ? field(req.body, 'role')
        : 'viewer'
    ) as Role;
    await createGrant(o.rc, { resource, principal: { type: 'user', email: field(req.body, 'email') }, role });
  });
  act(`${PAGE}/grants/:id/revoke`, async (o, req) => void (await revokeGrant(o.rc, String(req.params.id))));
  return router;
}
