import { getArtifact } from '../../files/artifacts.js';
import { readFolder } from '../../files/folders.js';
import { AppError, errorEnvelope } from '../../lib/errors.js';
import { artifactUrl } from '../../shapes/artifacts.js';
import { encodePath } from '../format.js';
import { SENT, go } from '../kit/call.js';
import { page, type Declaration } from '../kit/declare.js';
import { pathPages } from './path-view.js';

export { notFoundPage } from '../kit/answer.js';

/**
 * The viewer (REFERENCE "Web viewer URL scheme"): `/{drive_id}/{path}` (src/web/viewer/path-view.ts), `/a/{art_id}`
 * (302 to the path, forwarding only raw and download), `/a/{art_id}/head`, `/f/{fld_id}`. Every access asks the
 * domain with the visitor's RequestContext (src/web/viewer/access.ts), so the one rule decides; whatever the visitor
 * may not read is the same 404 as what does not exist.
 */
export const viewerPages: Declaration[] = [
  // The file page's "newer version" check (a script's JSON, not a page).
  page({ path: '/a/:artId/head', who: 'visitor' }, async (c) => {
    c.res.setHeader('Cache-Control', 'no-store');
    try {
      const a = await getArtifact(c.rc, String(c.req.params.artId));
      c.res.json({ version: a.version_number });
    } catch (err) {
      if (!(err instanceof AppError) || err.status >= 500) throw err;
      c.res.status(404).json(errorEnvelope('ARTIFACT_NOT_FOUND', 'no live artifact'));
    }
    return SENT;
  }),

  page({ path: '/a/:artId', who: 'visitor', refusedAs: 'not_found' }, async (c) => {
    const a = await getArtifact(c.rc, String(c.req.params.artId));
    const forward = new URLSearchParams();
    for (const k of ['raw', 'download']) if (c.query(k)) forward.set(k, c.query(k));
    const qs = forward.toString();
    return go(`${artifactUrl(c.ctx.config, a.drive_id, a.path)}${qs ? `?${qs}` : ''}`, undefined, 302);
  }),

  page({ path: '/f/:fldId', who: 'visitor', refusedAs: 'not_found' }, async (c) => {
    const f = await readFolder(c.rc, { id: String(c.req.params.fldId) });
    return go(`${c.ctx.config.http.webUrl}/${f.drive_id}/${f.path}/`, undefined, 302);
  }),

  // Last: its `/{drive_id}/…` declarations pass anything that is not a drive id on.
  ...pathPages,
];

export { encodePath };
