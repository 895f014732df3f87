import { AppError } from '../../lib/errors.js';
import { redeemShare, SHARE_UNLOCK_TTL_S } from '../../sharing/shares.js';
import { shareRead } from '../../sharing/viewer-reads.js';
import { csrfField, html } from '../html.js';
import { notFoundPage } from '../kit/answer.js';
import { go, SENT, show, type AnyoneCall } from '../kit/call.js';
import { form, page, type Declaration } from '../kit/declare.js';
import { readCookie } from '../session.js';
import { sendArtifactPage, sendRaw } from './artifact-page.js';
import { groupListing, sendFolderPage } from './folder-page.js';
import { encodePath } from '../format.js';

const UNLOCK_COOKIE = 'ad_share_unlock';
const ROUTE = '/s/:key{/*rest}';

/**
 * `/s/{share_key}` (GET; POST with the form field `password`, answered 303 to the GET with an unlock cookie scoped
 * to the link's path, so raw and download work after one correct password): the holder of the link sees exactly its
 * role on exactly its resource (src/sharing/viewer-reads.ts `shareRead`): the artifact, or the shared folder, whose
 * files are at `/s/{share_key}/{path below the folder}`. A dead, rotated or revoked key is 404.
 */
const keyOf = (c: AnyoneCall) => String(c.req.params.key);
const restOf = (c: AnyoneCall) => (Array.isArray(c.req.params.rest) ? (c.req.params.rest as string[]).join('/') : '');

/** A link that asks for a password shows the form; any other refusal is the not-found page; 429 stays a 429. */
function refusal(c: AnyoneCall, err: unknown, wrong: boolean) {
  if (err instanceof AppError && err.code === 'SHARE_PASSWORD_REQUIRED') return passwordForm(c, wrong);
  if (err instanceof AppError && err.code === 'RATE_LIMITED') throw err; // 429 page with Retry-After (src/web/index.ts)
  if (err instanceof AppError && err.status < 500) {
    notFoundPage(c.ctx, c.req, c.res);
    return SENT;
  }
  throw err;
}

export const sharePages: Declaration[] = [
  page({ path: ROUTE, who: 'anyone' }, async (c) => {
    const key = keyOf(c);
    const visitor = { password: null, ip: c.req.ip ?? 'unknown', unlock: readCookie(c.req, UNLOCK_COOKIE) };
    let read;
    try {
      read = await shareRead(c.ctx, key, restOf(c), visitor);
    } catch (err) {
      return refusal(c, err, false);
    }
    const self = `${c.ctx.config.http.webUrl}/s/${encodeURIComponent(key)}`;
    const { redemption: r, sub } = read;
    if (read.kind === 'file') {
      if (c.query('raw') === '1' || c.query('download') === '1') {
        await sendRaw(c.ctx, c.res, read.blob, c.query('download') === '1');
        return SENT;
      }
      await sendArtifactPage(c.ctx, c.res, {
        artifact: read.artifact,
        blob: read.blob,
        selfUrl: r.artifact ? self : `${self}/${encodePath(restOf(c))}`,
        nav: c.nav(),
        crumbs: html`<p class="muted">Shared with you (${r.role})</p>`,
      });
      return SENT;
    }
    // The shared folder, or a folder below it (its files are the shared listing's below that path).
    const title = read.prefix.slice(0, -1);
    sendFolderPage(c.res, {
      title: title.slice(title.lastIndexOf('/') + 1),
      base: `${self}/${sub ? `${encodePath(sub)}/` : ''}`,
      prefix: read.prefix,
      ...groupListing(read.items, read.prefix),
      marks: {},
      nav: c.nav(),
      crumbs: html`<p class="muted">Shared folder (${r.role})</p>`,
    });
    return SENT;
  }),

  // The right password, once: an unlock for this link (its raw bytes and download too), then back to GET.
  form({ path: ROUTE, who: 'anyone', expired: (c) => passwordForm(c, false, 403) }, async (c) => {
    const key = keyOf(c);
    let unlock: string | undefined;
    try {
      unlock = (await redeemShare(c.ctx, key, c.field('password'), c.req.ip ?? 'unknown')).unlock;
    } catch (err) {
      return refusal(c, err, true);
    }
    if (unlock)
      c.res.cookie(UNLOCK_COOKIE, unlock, {
        httpOnly: true,
        sameSite: 'lax',
        secure: c.ctx.config.http.webUrl.startsWith('https:'),
        path: `/s/${key}`,
        maxAge: SHARE_UNLOCK_TTL_S * 1000,
      });
    return go(c.req.originalUrl);
  }),
];

function passwordForm(c: AnyoneCall, wrong: boolean, status = 401) {
  return show(
    'This link needs a password',
    html`${wrong ? html`<p class="error">That password is not right.</p>` : ''}
      <form method="post" action="${c.req.originalUrl.split('?')[0]}">
        ${csrfField(c.csrf())}
        <label>Password <input type="password" name="password" autocomplete="off" required /></label>
        <button type="submit">Open</button>
      </form>`,
    status,
    { layout: 'plain', nav: c.nav() },
  );
}
