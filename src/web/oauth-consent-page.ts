import { Router, type Request, type Response } from 'express';
import type { AppContext } from '../platform/context.js';
import {
  AuthorizeRefused,
  checkAuthorizeRequest,
  createDriveForAccount,
  grantableDrives,
  issueAuthorizationCode,
  type AuthorizeRequest,
} from '../identity/mcp-oauth.js';
import { OAuthError } from '../identity/oauth-error.js';
import { isClientIdUrl } from '../identity/client-metadata.js';
import { loginUrl } from './auth-pages.js';
import { csrfField, html, sendPage } from './html.js';
import { csrfValid, readSession } from './session.js';

/**
 * /oauth2/authorize for MCP clients: the signed-in drive owner sees which client asks, picks one
 * of their drives (or, owning none, creates one) and approves or denies (a CSRF-checked form).
 * Problems with the client or its redirect URI are shown here and never redirected; an unknown
 * scope or a foreign resource, a denial and a failed approval go back to the client.
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

/**
 * The CSP source for where the consent form's answer goes, the validated redirect URI (Chromium applies `form-action`
 * to the 303 that answers the post): its origin; for a host CSP cannot spell (an IPv6 literal such as [::1]) any host
 * on that scheme and port; for an app scheme, the scheme.
 */
export function redirectSource(redirectUri: string): string {
  const u = new URL(redirectUri);
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return u.protocol;
  if (/^[a-z0-9-]+(\.[a-z0-9-]+)*$/i.test(u.hostname)) return u.origin;
  return `${u.protocol}//*:${u.port || (u.protocol === 'https:' ? '443' : '80')}`;
}

/** Who asks: the client's name, and for a metadata-document client the host that publishes it. */
function clientLabel(r: AuthorizeRequest) {
  const name = html`<strong>${r.client.client_name ?? r.client.client_id}</strong>`;
  return isClientIdUrl(r.client.client_id)
    ? html`${name} (described by <code>${new URL(r.client.client_id).host}</code>)`
    : name;
}

async function checked(
  ctx: AppContext,
  req: Request,
  res: Response,
  source: Record<string, unknown>,
): Promise<AuthorizeRequest | undefined> {
  try {
    return await checkAuthorizeRequest(ctx, source, req.ip ?? 'unknown');
  } catch (err) {
    if (err instanceof AuthorizeRefused) {
      back(res, err.request, { error: err.code, error_description: err.description });
      return undefined;
    }
    if (!(err instanceof OAuthError)) throw err;
    if (err.retryAfterS !== undefined) res.setHeader('Retry-After', String(err.retryAfterS));
    sendPage(
      res,
      'Connect an app',
      html`<p class="error" role="alert">This sign-in link is not valid: ${err.description}.</p>`,
      err.status,
    );
    return undefined;
  }
}

/** Read only or read and write (issue 36); a client that asked for `drive:read` is offered no more. */
function accessChoice(readOnly: boolean) {
  if (readOnly)
    return html`<p><strong>Read only</strong>: it can read, list and search your files, and change nothing.</p>`;
  return html`<fieldset>
    <legend>Access</legend>
    <label
      ><input type="radio" name="access" value="read_write" checked /> Read and write: read, search, upload, edit, move
      and delete files</label
    >
    <label><input type="radio" name="access" value="read" /> Read only: read, list and search; change nothing</label>
  </fieldset>`;
}

export function oauthConsentRouter(ctx: AppContext): Router {
  const router = Router();

  router.get('/oauth2/authorize', async (req: Request, res: Response) => {
    const r = await checked(ctx, req, res, req.query);
    if (!r) return;
    const session = readSession(req);
    if (!session?.uid) return res.redirect(303, loginUrl(req.originalUrl));
    const drives = await grantableDrives(ctx, session.uid);
    const hidden = PARAMS.map((k) =>
      typeof req.query[k] === 'string'
        ? html`<input type="hidden" name="${k}" value="${req.query[k] as string}" />`
        : '',
    );
    sendPage(
      res,
      'Connect an app',
      html` <p>
          ${clientLabel(r)} wants to use your drive through MCP. It will be sent back to
          <code>${r.redirectUri}</code>.
        </p>
        <form method="post" action="/oauth2/authorize">
          ${csrfField(session.csrf)} ${hidden} ${accessChoice(r.readOnly)}
          ${
            drives.length
              ? html`<fieldset>
                    <legend>Drive</legend>
                    ${drives.map((d, i) => html`<label><input type="radio" name="drive_id" value="${d.id}" ${i === 0 ? html`checked` : ''} /> <code>${d.id}</code></label>`)}
                  </fieldset>
                  <button type="submit" name="decision" value="approve">Allow</button>`
              : html`<p>Your account has no drive yet: allowing creates one, owned by you, for this app to use.</p>
                  <button type="submit" name="decision" value="create">Create a drive and allow</button>`
          }
          <button type="submit" name="decision" value="deny">Deny</button>
        </form>
        <p>Signed in as ${session.email}. You can revoke access at any time; the app then has to ask again.</p>`,
      200,
      { formAction: redirectSource(r.redirectUri) },
    );
  });

  router.post('/oauth2/authorize', async (req: Request, res: Response) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const r = await checked(ctx, req, res, body);
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
    if (body.decision !== 'approve' && body.decision !== 'create')
      return back(res, r, { error: 'access_denied', error_description: 'the drive owner denied access' });
    try {
      // A person with no drive yet makes one here (never stranded on a dead end); with one, the chosen drive.
      const driveId =
        body.decision === 'create'
          ? (await createDriveForAccount(ctx, session.uid))[0].id
          : typeof body.drive_id === 'string'
            ? body.drive_id
            : '';
      const code = await issueAuthorizationCode(ctx, r, session.uid, driveId, body.access === 'read');
      back(res, r, { code });
    } catch (err) {
      if (!(err instanceof OAuthError)) throw err;
      back(res, r, { error: err.code, error_description: err.description });
    }
  });
  return router;
}
