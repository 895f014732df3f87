import { Router, type Request, type Response } from 'express';
import type { AppContext } from '../platform/context.js';
import {
  checkAuthorizeRequest,
  grantableDrives,
  issueAuthorizationCode,
  type AuthorizeRequest,
} from '../identity/mcp-oauth.js';
import { OAuthError } from '../identity/oauth-error.js';
import { loginUrl } from './auth-pages.js';
import { csrfField, html, sendPage } from './html.js';
import { csrfValid, readSession } from './session.js';

/**
 * /oauth2/authorize for MCP clients: the signed-in drive owner sees which client asks, picks one
 * of their drives and approves or denies (a CSRF-checked form). Problems with the client or its
 * redirect URI are shown here and never redirected; everything else goes back to the client.
 */
const PARAMS = [
  'client_id',
  'redirect_uri',
  'response_type',
  'code_challenge',
  'code_challenge_method',
  'state',
  'resource',
  'scope',
] as const;

function back(res: Response, r: AuthorizeRequest, params: Record<string, string>) {
  const url = new URL(r.redirectUri);
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  if (r.state !== null) url.searchParams.set('state', r.state);
  res.redirect(303, url.toString());
}

async function checked(
  ctx: AppContext,
  res: Response,
  source: Record<string, unknown>,
): Promise<AuthorizeRequest | undefined> {
  try {
    return await checkAuthorizeRequest(ctx, source);
  } catch (err) {
    if (!(err instanceof OAuthError)) throw err;
    sendPage(
      res,
      'Connect an app',
      html`<p class="error">This sign-in link is not valid: ${err.description}.</p>`,
      400,
    );
    return undefined;
  }
}

export function oauthConsentRouter(ctx: AppContext): Router {
  const router = Router();

  router.get('/oauth2/authorize', async (req: Request, res: Response) => {
    const r = await checked(ctx, res, req.query);
    if (!r) return;
    const session = readSession(req);
    if (!session?.uid) return res.redirect(303, loginUrl(req.originalUrl.slice(0, 480)));
    const drives = await grantableDrives(ctx, session.uid);
    if (!drives.length) {
      return sendPage(
        res,
        'Connect an app',
        html`<p class="error">Your account owns no drive yet. Claim your agent's drive first, then connect again.</p>`,
        403,
      );
    }
    const hidden = PARAMS.map((k) =>
      typeof req.query[k] === 'string'
        ? html`<input type="hidden" name="${k}" value="${req.query[k] as string}" />`
        : '',
    );
    sendPage(
      res,
      'Connect an app',
      html` <p>
          <strong>${r.client.client_name ?? r.client.client_id}</strong> wants to use your drive through MCP: read,
          search, upload, edit, move and delete its artifacts. It will be sent back to <code>${r.redirectUri}</code>.
        </p>
        <form method="post" action="/oauth2/authorize">
          ${csrfField(session.csrf)} ${hidden}
          <fieldset>
            <legend>Drive</legend>
            ${drives.map((d, i) => html`<label><input type="radio" name="drive_id" value="${d.id}" ${i === 0 ? html`checked` : ''} /> <code>${d.id}</code></label>`)}
          </fieldset>
          <button type="submit" name="decision" value="approve">Allow</button>
          <button type="submit" name="decision" value="deny">Deny</button>
        </form>
        <p>Signed in as ${session.email}. You can revoke access at any time; the app then has to ask again.</p>`,
    );
  });

  router.post('/oauth2/authorize', async (req: Request, res: Response) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const r = await checked(ctx, res, body);
    if (!r) return;
    const session = readSession(req);
    if (!session?.uid) return res.redirect(303, loginUrl('/dashboard'));
    if (!csrfValid(session, body.csrf))
      return sendPage(
        res,
        'Connect an app',
        html`<p class="error">Your form expired. Start the connection again from your app.</p>`,
        403,
      );
    if (body.decision !== 'approve')
      return back(res, r, { error: 'access_denied', error_description: 'the drive owner denied access' });
    try {
      const code = await issueAuthorizationCode(
        ctx,
        r,
        session.uid,
        typeof body.drive_id === 'string' ? body.drive_id : '',
      );
      back(res, r, { code });
    } catch (err) {
      if (!(err instanceof OAuthError)) throw err;
      back(res, r, { error: err.code, error_description: err.description });
    }
  });
  return router;
}
