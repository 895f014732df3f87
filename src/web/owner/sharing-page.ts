import { Router, type Request, type Response } from 'express';
import type { AppContext } from '../../platform/context.js';
import { AppError } from '../../lib/errors.js';
import { createGrant, revokeGrant } from '../../sharing/grants.js';
import { mintShare, revokeShare, rotateShare, SHARE_ROLES, type ShareRole } from '../../sharing/shares.js';
import type { Role } from '../../access/authorize.js';
import { shareUrl } from '../../shapes/sharing.js';
import { html } from '../html.js';
import { takeFlash, writeFlash } from '../session.js';
import { chargeWriteOrRefuse } from '../../platform/rate-limits.js';
import { setPublic, sharingState } from '../../sharing/sharing-state.js';
import { safeBack } from '../format.js';
import { attempt, field, ownerOf, ownerPage, ownerPost, type Owner } from './owner-request.js';
import { LINK_EXPIRIES, sharePanel } from './share-panel.js';

/**
 * Sharing, for one resource (an `art_`/`fld_` id or a path of the owner's drive): its live grants
 * (create for a person's email, revoke) and share links (create, rotate, revoke; a new key is shown
 * once, as a link to copy). Every action is the sharing module's own operation.
 */
const PAGE = '/settings/sharing';
const back = (resource: string) => `${PAGE}?resource=${encodeURIComponent(resource)}`;

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
    let state;
    try {
      state = await sharingState(o.rc, resource);
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
    ownerPage(
      ctx,
      req,
      res,
      'Sharing',
      html`${pick} ${sharePanel(o.session.csrf, resource, back(resource), state, flash?.url, true)}`,
    );
  });

  // Each action comes back (303) to the page it was posted from: this page, or a file or folder page's Share control.
  const act = (path: string, fn: (o: Owner, req: Request, resource: string) => Promise<string | void>) =>
    router.post(path, async (req: Request, res: Response) => {
      const o = ownerPost(ctx, req, res);
      if (!o) return;
      const resource = field(req.body, 'resource');
      const to = safeBack(field(req.body, 'back'), back(resource));
      await attempt(
        ctx,
        req,
        res,
        to,
        async () => {
          await chargeWriteOrRefuse(ctx, o.rc.principal);
          const url = await fn(o, req, resource);
          writeFlash(ctx.config, res, to.split('?')[0], url ? { url } : { share: 'open' });
          res.redirect(303, to);
        },
        'Sharing',
      );
    });

  act(`${PAGE}/shares`, async (o, req, resource) => {
    const role = (SHARE_ROLES as readonly string[]).includes(field(req.body, 'role'))
      ? (field(req.body, 'role') as ShareRole)
      : 'viewer';
    const expires = Number(field(req.body, 'expires_in'));
    const minted = await mintShare(o.rc, {
      resource,
      role,
      password: field(req.body, 'password') || null,
      expiresIn: LINK_EXPIRIES.some(([v]) => v && Number(v) === expires) ? expires : null,
    });
    return shareUrl(ctx.config, minted.key);
  });
  act(`${PAGE}/public`, async (o, req, resource) => setPublic(o.rc, resource, field(req.body, 'public') === 'on'));
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
