import { AuthorizeRefused, type AuthorizeRequest } from '../identity/mcp-oauth.js';
import { answerConsent, consentRead } from '../identity/oauth-consent.js';
import { OAuthError } from '../identity/oauth-error.js';
import { isClientIdUrl } from '../identity/client-metadata.js';
import { dayOf, driveContents, loginUrl } from './format.js';
import { driveLabel } from './nav.js';
import { CONNECTED_APPS_PATH } from './connected-apps-page.js';
import { csrfField, html } from './html.js';
import { go, show, type AnyoneCall, type SignedInCall } from './kit/call.js';
import { form, page, type Declaration } from './kit/declare.js';

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

/** Back to the client's redirect URI with these parameters (and its state). */
function back(r: AuthorizeRequest, params: Record<string, string>) {
  const url = new URL(r.redirectUri);
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  if (r.state !== null) url.searchParams.set('state', r.state);
  return go(url.toString());
}

/**
 * The CSP source for where the consent form's answer goes, the validated redirect URI (Chromium applies `form-action`
 * to the 303 that answers the post): exactly its origin; for an app scheme, the scheme. Undefined for the one host CSP
 * cannot spell, the IPv6 loopback [::1]: that answer leaves by a page instead (`handBack`), so no wildcard is needed.
 */
export function redirectSource(redirectUri: string): string | undefined {
  const u = new URL(redirectUri);
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return u.protocol;
  return /^[a-z0-9.-]+$/i.test(u.hostname) ? u.origin : undefined;
}

/**
 * The answer of the consent form: a 303 to the client, or, where the form's CSP cannot name the redirect URI, a page
 * that moves on by its Refresh header (a navigation of its own, which `form-action` does not govern).
 */
function handBack(c: AnyoneCall | SignedInCall, r: AuthorizeRequest, params: Record<string, string>) {
  const to = back(r, params);
  if (redirectSource(r.redirectUri) !== undefined) return to;
  c.res.setHeader('Refresh', `0; url=${to.to}`);
  return show('Connect an app', html`<p role="status">Returning you to the app: <a href="${to.to}">continue</a>.</p>`);
}

/** Who asks: the client's name, and for a metadata-document client the host that publishes it. */
function clientLabel(r: AuthorizeRequest) {
  const name = html`<strong>${r.client.client_name ?? r.client.client_id}</strong>`;
  return isClientIdUrl(r.client.client_id)
    ? html`${name} (described by <code>${new URL(r.client.client_id).host}</code>)`
    : name;
}

/**
 * A refused authorization request: a bad scope or resource goes back to the client; a bad client or redirect URI is
 * said here and never redirected.
 */
function refused(c: AnyoneCall | SignedInCall, err: unknown) {
  if (err instanceof AuthorizeRefused)
    return handBack(c, err.request, { error: err.code, error_description: err.description });
  if (!(err instanceof OAuthError)) throw err;
  if (err.retryAfterS !== undefined) c.res.setHeader('Retry-After', String(err.retryAfterS));
  return show(
    'Connect an app',
    html`<p class="error" role="alert">This sign-in link is not valid: ${err.description}.</p>`,
    err.status,
  );
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

export const oauthConsentPages: Declaration[] = [
  page({ path: '/oauth2/authorize', who: 'anyone' }, async (c) => {
    const uid = c.session?.uid;
    let read;
    try {
      read = await consentRead(c.ctx, c.req.query, c.req.ip ?? 'unknown', uid);
    } catch (err) {
      return refused(c, err);
    }
    if (!uid) return go(loginUrl(c.req.originalUrl));
    const { request: r, drives } = read;
    const hidden = PARAMS.map((k) =>
      c.query(k) ? html`<input type="hidden" name="${k}" value="${c.query(k)}" />` : '',
    );
    return show(
      'Connect an app',
      html`<p>
          ${clientLabel(r)} asks to use your drive through MCP. It will be sent back to <code>${r.redirectUri}</code>.
        </p>
        <form method="post" action="/oauth2/authorize" class="card">
          ${csrfField(c.csrf())} ${hidden} ${accessChoice(r.readOnly)}
          ${
            drives.length
              ? html`<fieldset>
                    <legend>Drive</legend>
                    ${drives.map(
                      (d, i) =>
                        html`<label data-testid="consent-drive"
                          ><input type="radio" name="drive_id" value="${d.id}" ${i === 0 ? html`checked` : ''} />
                          ${drives.length > 1 ? html`Drive ${i + 1}: ` : html`Your drive: `}${driveContents(d)}
                          <span class="muted"
                            >· <strong>${driveLabel(d)}</strong>${d.name ? html` (<code>${d.id}</code>)` : ''}${
                              d.claimedAt ? `, claimed ${dayOf(d.claimedAt)}` : ''
                            }</span
                          ></label
                        >`,
                    )}
                  </fieldset>
                  <p class="muted">The app is added to the drive you pick; it makes no new drive.</p>
                  <button type="submit" name="decision" value="approve" class="primary">Allow</button>`
              : html`<p>Your account has no drive yet: allowing creates one, owned by you, for this app to use.</p>
                  <button type="submit" name="decision" value="create" class="primary">Create a drive and allow</button>`
          }
          <button type="submit" name="decision" value="deny">Deny</button>
        </form>
        <p>
          Signed in as ${c.session?.email}. You can disconnect the app at any time on
          <a href="${CONNECTED_APPS_PATH}">Connected apps</a>; it then has to ask again.
        </p>`,
      200,
      { formAction: redirectSource(r.redirectUri), layout: 'app' },
    );
  }),

  form({ path: '/oauth2/authorize', who: 'signed_in', back: '/dashboard' }, async (c) => {
    const answer = {
      decision: c.field('decision'),
      driveId: c.field('drive_id'),
      readOnly: c.field('access') === 'read',
    };
    try {
      const { request, params } = await answerConsent(
        c.ctx,
        c.req.body ?? {},
        c.req.ip ?? 'unknown',
        c.session.uid,
        answer,
      );
      return handBack(c, request, params);
    } catch (err) {
      return refused(c, err);
    }
  }),
];
