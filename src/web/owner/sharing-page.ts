import { createGrant, revokeGrant } from '../../sharing/grants.js';
import {
  mintShare,
  revokeShare,
  rotateShare,
  SHARE_LABEL_MAX,
  SHARE_ROLES,
  type ShareRole,
} from '../../sharing/shares.js';
import type { Role } from '../../access/authorize.js';
import { shareUrl } from '../../shapes/sharing.js';
import { html } from '../html.js';
import { DROP_UPLOAD_PATH } from '../assets.js';
import { setPublic, sharingState } from '../../sharing/sharing-state.js';
import { safeBack } from '../format.js';
import { go, show, type OwnerCall } from '../kit/call.js';
import { form, page, type Declaration } from '../kit/declare.js';
import { LINK_EXPIRIES, sharePanel } from './share-panel.js';

/**
 * Sharing, for one resource (an `art_`/`fld_` id or a path of the owner's drive): its live grants
 * (create for a person's email, revoke) and share links (create, rotate, revoke; a new key is shown
 * once, as a link to copy). Every action is the sharing module's own operation.
 */
const PAGE = '/settings/sharing';
const back = (resource: string) => `${PAGE}?resource=${encodeURIComponent(resource)}`;

const pick = (resource: string) => html`<form method="get" action="${PAGE}">
  <label>File or folder (path, art_ or fld_ id) <input type="text" name="resource" value="${resource}" required /></label
  ><button type="submit">Show sharing</button>
</form>`;

/** A sharing form: one write; its refusal page leads back to the sharing page. */
const sharingForm = (path: string) => ({
  path,
  who: 'owner' as const,
  writes: true,
  refusalTitle: 'Sharing',
  back: PAGE,
});

/**
 * Each action comes back (303) to the page it was posted from: this page, or a file or folder page's Share control,
 * with a new link's address (shown once) or the panel open.
 */
const cameFrom = (c: OwnerCall, url?: string) =>
  go(safeBack(c.field('back'), back(c.field('resource'))), url ? { url } : { share: 'open' });

const oneOf = <T extends string>(value: string, allowed: readonly T[], fallback: T): T =>
  (allowed as readonly string[]).includes(value) ? (value as T) : fallback;

export const sharingPages: Declaration[] = [
  page({ path: PAGE, who: 'owner', refusalTitle: 'Sharing' }, async (c) => {
    const resource = c.query('resource').trim();
    if (!resource) return show('Sharing', pick(resource));
    const flash = c.flash();
    const state = await sharingState(c.rc, resource);
    return show(
      'Sharing',
      html`${pick(resource)} ${sharePanel(c.session.csrf, resource, back(resource), state, flash?.url, true)}`,
      200,
      { script: DROP_UPLOAD_PATH },
    );
  }),
  form(sharingForm(`${PAGE}/shares`), async (c) => {
    const expires = Number(c.field('expires_in'));
    const minted = await mintShare(c.rc, {
      resource: c.field('resource'),
      role: oneOf<ShareRole>(c.field('role'), SHARE_ROLES, 'viewer'),
      password: c.field('password') || null,
      label: c.field('label').slice(0, SHARE_LABEL_MAX) || null,
      expiresIn: LINK_EXPIRIES.some(([v]) => v && Number(v) === expires) ? expires : null,
    });
    return cameFrom(c, shareUrl(c.ctx.config, minted.key));
  }),
  form(sharingForm(`${PAGE}/public`), async (c) => {
    await setPublic(c.rc, c.field('resource'), c.field('public') === 'on');
    return cameFrom(c);
  }),
  form(sharingForm(`${PAGE}/shares/:id/rotate`), async (c) =>
    cameFrom(c, shareUrl(c.ctx.config, (await rotateShare(c.rc, String(c.req.params.id))).key)),
  ),
  form(sharingForm(`${PAGE}/shares/:id/revoke`), async (c) => {
    await revokeShare(c.rc, String(c.req.params.id));
    return cameFrom(c);
  }),
  form(sharingForm(`${PAGE}/grants`), async (c) => {
    const role = oneOf<Role>(c.field('role'), ['viewer', 'commenter', 'editor', 'manager'], 'viewer');
    await createGrant(c.rc, {
      resource: c.field('resource'),
      principal: { type: 'user', email: c.field('email') },
      role,
    });
    return cameFrom(c);
  }),
  form(sharingForm(`${PAGE}/grants/:id/revoke`), async (c) => {
    await revokeGrant(c.rc, String(c.req.params.id));
    return cameFrom(c);
  }),
];
