import { createHash } from 'node:crypto';
import type { AppContext } from '../platform/context.js';
import { newId } from '../lib/ids.js';
import type { Principal } from '../platform/request-context.js';
import { listUserDrives } from '../drives/drives.js';
import { OAuthError } from './oauth-error.js';
import { isOurResource } from './mcp-resource.js';
import { hashSecret, newSecret } from '../lib/secrets.js';
import { DRIVE_READ_SCOPE, DRIVE_SCOPES, driveScopeOf, requestedReadOnly } from './scopes.js';
import { one, rows, transaction, type Db } from '../db/sql.js';
import { isClientIdUrl, metadataClient, publishedClient } from './client-metadata.js';
import { countRegistration, redirectUriRegistered, redirectUrisAllowed } from './oauth-client-rules.js';

/**
 * OAuth 2.1 for stock MCP clients (REFERENCE §4.10/§5): dynamic client registration (RFC 7591,
 * public clients, no secret), authorization codes with PKCE S256 issued after the signed-in owner
 * consents, and opaque tokens stored by hash: `adat_…` access tokens (MCP only; /v0 refuses them,
 * spec 5.2) and `adrt_…` refresh tokens that rotate on every use. One consent = one grant = one
 * chain: presenting a spent refresh token again revokes the whole chain (reuse detection), and so
 * does revoking any refresh token (RFC 7009).
 */
export const MCP_ACCESS_PREFIX = 'adat_';
export const MCP_REFRESH_PREFIX = 'adrt_';
const CODE_PREFIX = 'adac_';
const CLIENT_PREFIX = 'mcpc_';
export const MCP_OAUTH_SCOPE = 'drive';

export interface OAuthClient {
  client_id: string;
  client_name: string | null;
  redirect_uris: string[];
}

/**
 * POST /oauth2/register (RFC 7591): a public client; only redirect URIs and a name are kept.
 * Registration needs no credential, so it is counted per client IP on the agent registrations'
 * limit (REGISTRATIONS_PER_IP_PER_HOUR, a counter of its own); the cleanup run drops clients that
 * never got a consent (src/identity/expired-credentials.ts).
 */
export async function registerClient(
  app: AppContext,
  meta: { redirect_uris?: unknown; client_name?: unknown; token_endpoint_auth_method?: unknown },
  clientIp: string,
) {
  const uris = meta.redirect_uris;
  if (!redirectUrisAllowed(uris)) {
    throw new OAuthError(
      'invalid_redirect_uri',
      'redirect_uris must be 1-10 absolute URIs: https to a host name, http on localhost, or an app scheme; no fragment or credentials',
    );
  }
  if (meta.token_endpoint_auth_method !== undefined && meta.token_endpoint_auth_method !== 'none') {
    throw new OAuthError(
      'invalid_client_metadata',
      'only public clients are supported: token_endpoint_auth_method must be "none"',
    );
  }
  const name = typeof meta.client_name === 'string' ? meta.client_name.slice(0, 200) : null;
  await countRegistration(app, clientIp);
  const clientId = `${CLIENT_PREFIX}${newSecret('', 16)}`;
  await one(
    app.orm.em.fork(),
    `insert into oauth_clients (client_id, client_name, redirect_uris) values (?, ?, array[?]::text[])`,
    [clientId, name, uris],
  );
  return {
    client_id: clientId,
    client_id_issued_at: Math.floor(Date.now() / 1000),
    client_name: name ?? undefined,
    redirect_uris: uris,
    token_endpoint_auth_method: 'none',
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    scope: DRIVE_SCOPES.join(' '),
  };
}

/**
 * A client by its id: a registered one, or one whose id is the URL of its metadata document (client-metadata.ts; a
 * fetch counts on `clientIp`'s registration limit).
 */
export async function findClient(
  app: AppContext,
  clientId: string,
  clientIp: string,
): Promise<OAuthClient | undefined> {
  if (isClientIdUrl(clientId)) return metadataClient(app, clientId, clientIp);
  return one<OAuthClient>(
    app.orm.em.fork(),
    `select client_id, client_name, redirect_uris from oauth_clients where client_id = ?`,
    [clientId],
  );
}

export interface AuthorizeRequest {
  client: OAuthClient;
  redirectUri: string;
  codeChallenge: string;
  state: string | null;
  resource: string | null;
  /** The client asked for `drive:read` only: consent offers read only. */
  readOnly: boolean;
}

/**
 * Checks an authorization request before anything is shown. Errors about the client or redirect
 * URI are never redirected (RFC 6749 4.1.2.1); the caller renders them.
 */
export async function checkAuthorizeRequest(
  app: AppContext,
  q: Record<string, unknown>,
  clientIp: string,
): Promise<AuthorizeRequest> {
  const str = (k: string) => (typeof q[k] === 'string' ? (q[k] as string) : undefined);
  const client = str('client_id') ? await findClient(app, str('client_id')!, clientIp) : undefined;
  if (!client) throw new OAuthError('invalid_client', 'unknown client_id; register the client first');
  const redirectUri = str('redirect_uri') ?? (client.redirect_uris.length === 1 ? client.redirect_uris[0] : undefined);
  if (!redirectUri || !redirectUriRegistered(client.redirect_uris, redirectUri))
    throw new OAuthError('invalid_redirect_uri', 'redirect_uri is not registered for this client');
  if (str('response_type') !== 'code') throw new OAuthError('invalid_request', 'response_type must be code');
  const challenge = str('code_challenge');
  if (!challenge || !/^[A-Za-z0-9_-]{43}$/.test(challenge) || str('code_challenge_method') !== 'S256') {
    throw new OAuthError(
      'invalid_request',
      'PKCE is required: code_challenge (S256, base64url) and code_challenge_method=S256',
    );
  }
  const request = {
    client,
    redirectUri,
    codeChallenge: challenge,
    state: str('state')?.slice(0, 1000) ?? null,
    resource: str('resource')?.slice(0, 2000) ?? null,
    readOnly: false,
  };
  // From here on the client and its redirect URI are known good: these go back to it (RFC 6749 4.1.2.1).
  try {
    request.readOnly = requestedReadOnly(str('scope')) ?? false;
  } catch (err) {
    if (err instanceof OAuthError) throw new AuthorizeRefused(request, 'invalid_scope', err.description);
    throw err;
  }
  if (request.resource !== null && !isOurResource(app, request.resource))
    throw new AuthorizeRefused(request, 'invalid_target', `resource must be ${app.config.http.baseUrl}/mcp (RFC 8707)`);
  return request;
}

/** A refusal to send back to the client's redirect URI with `error` (the request itself is well addressed). */
export class AuthorizeRefused extends OAuthError {
  constructor(
    readonly request: AuthorizeRequest,
    code: 'invalid_scope' | 'invalid_target',
    description: string,
  ) {
    super(code, description);
  }
}

/**
 * A signed-in person with no drive yet creates one on the consent page (rather than being stranded): a claimed,
 * permanent drive owned by the account, made only while the account owns none (the row lock on the account keeps
 * two concurrent forms to one drive). Returns the account's drives afterwards.
 */
export async function createDriveForAccount(app: AppContext, userId: string) {
  await transaction(app, async (tx) => {
    const user = await one<{ email: string; email_verified_at: Date | null }>(
      tx,
      `select email, email_verified_at from human_users where id = ? for update`,
      [userId],
    );
    if (!user) throw new OAuthError('access_denied', 'no such account');
    if (await one(tx, `select 1 from drives where owner_user_id = ? and deleted_at is null`, [userId])) return;
    await one(
      tx,
      `insert into drives (id, owner_email, owner_user_id, claimed_at, settings) values (?, ?, ?, now(), '{}'::jsonb)`,
      [newId('drv'), user.email_verified_at ? user.email : null, userId],
    );
  });
  return grantableDrives(app, userId);
}

/** The drives a signed-in web account may grant (the ones it claimed). */
export async function grantableDrives(app: AppContext, userId: string) {
  return listUserDrives(app.orm.em.fork(), userId);
}

/**
 * The owner approved: a single-use code bound to client, redirect URI, PKCE challenge, account, drive and access (read
 * only when the owner chose it or the client asked for no more).
 */
export async function issueAuthorizationCode(
  app: AppContext,
  req: AuthorizeRequest,
  userId: string,
  driveId: string,
  readOnly = false,
): Promise<string> {
  if (!(await grantableDrives(app, userId)).some((d) => d.id === driveId))
    throw new OAuthError('access_denied', 'the account does not own this drive');
  const code = newSecret(CODE_PREFIX);
  await one(
    app.orm.em.fork(),
    `insert into oauth_codes (code_hash, client_id, drive_id, user_id, redirect_uri, code_challenge, scope, resource, expires_at)
     values (?, ?, ?, ?, ?, ?, ?, ?, now() + make_interval(secs => ?))`,
    [
      hashSecret(code),
      req.client.client_id,
      driveId,
      userId,
      req.redirectUri,
      req.codeChallenge,
      driveScopeOf(readOnly || req.readOnly),
      req.resource,
      app.config.durations.mcpOauthCodeS,
    ],
  );
  return code;
}

async function issuePair(app: AppContext, tx: Db, grantId: string, scope: string) {
  const access = newSecret(MCP_ACCESS_PREFIX);
  const refresh = newSecret(MCP_REFRESH_PREFIX);
  const { mcpOauthAccessS, mcpOauthRefreshS } = app.config.durations;
  await rows(
    tx,
    `insert into oauth_tokens (token_hash, grant_id, kind, expires_at) values
       (?, ?, 'access', now() + make_interval(secs => ?)), (?, ?, 'refresh', now() + make_interval(secs => ?))`,
    [hashSecret(access), grantId, mcpOauthAccessS, hashSecret(refresh), grantId, mcpOauthRefreshS],
  );
  return {
    access_token: access,
    token_type: 'Bearer' as const,
    expires_in: mcpOauthAccessS,
    refresh_token: refresh,
    scope,
  };
}

const s256 = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

/**
 * grant_type=authorization_code. The code is spent by the first attempt, whatever its outcome (a
 * wrong client, redirect URI or PKCE verifier spends it too: the attempt commits before it fails),
 * and a spent code presented again revokes the grant its exchange issued, every token of it
 * (RFC 6749 4.1.2): a replay means the code leaked.
 */
export async function exchangeAuthorizationCode(
  app: AppContext,
  f: { code: string; clientId: string; redirectUri?: string; codeVerifier: string; clientIp: string },
) {
  // A metadata-document client's document must still list the redirect URI (checked below).
  const named = await one<{ client_id: string }>(
    app.orm.em.fork(),
    `select client_id from oauth_codes where code_hash = ? and used_at is null and expires_at > now()`,
    [hashSecret(f.code)],
  );
  const published = await publishedClient(app, named?.client_id, f.clientId, f.clientIp);
  const outcome = await transaction(app, async (tx) => {
    const codeHash = hashSecret(f.code);
    const c = await one<{
      client_id: string;
      drive_id: string;
      user_id: string;
      redirect_uri: string;
      code_challenge: string;
      scope: string;
      live: boolean;
    }>(
      tx,
      `update oauth_codes set used_at = now() where code_hash = ? and used_at is null
       returning client_id, drive_id, user_id, redirect_uri, code_challenge, scope, expires_at > now() as live`,
      [codeHash],
    );
    if (!c) {
      const spent = await one<{ grant_id: string | null }>(tx, `select grant_id from oauth_codes where code_hash = ?`, [
        codeHash,
      ]);
      if (spent?.grant_id) await revokeGrant(tx, spent.grant_id);
      return {
        error: spent
          ? 'the authorization code was already used; the tokens it issued are revoked'
          : 'the authorization code is unknown',
      };
    }
    if (!c.live) return { error: 'the authorization code expired' };
    if (c.client_id !== f.clientId) return { error: 'the code was issued to another client' };
    if (f.redirectUri !== undefined && f.redirectUri !== c.redirect_uri)
      return { error: 'redirect_uri differs from the authorization request' };
    if (published && !redirectUriRegistered(published.redirect_uris, c.redirect_uri))
      return { error: "the client's metadata document no longer lists the redirect_uri" };
    if (!/^[A-Za-z0-9._~-]{43,128}$/.test(f.codeVerifier) || s256(f.codeVerifier) !== c.code_challenge) {
      return { error: 'code_verifier does not match the code_challenge (PKCE S256)' };
    }
    const grantId = newId('grn').replace(/^grn_/, 'mcg_');
    await rows(tx, `insert into oauth_grants (id, client_id, drive_id, user_id, scope) values (?, ?, ?, ?, ?)`, [
      grantId,
      c.client_id,
      c.drive_id,
      c.user_id,
      c.scope,
    ]);
    await rows(tx, `update oauth_codes set grant_id = ? where code_hash = ?`, [grantId, codeHash]);
    return { tokens: await issuePair(app, tx, grantId, c.scope) };
  });
  if ('error' in outcome) throw new OAuthError('invalid_grant', outcome.error!);
  return outcome.tokens;
}

/**
 * grant_type=refresh_token: rotates; a spent refresh token presented again revokes the chain (its revocation is
 * committed even though the call fails).
 */
export async function refreshMcpToken(
  app: AppContext,
  f: { refreshToken: string; clientId: string; clientIp: string },
) {
  // A metadata-document client's document must still be there.
  const named = await one<{ client_id: string }>(
    app.orm.em.fork(),
    `select g.client_id from oauth_tokens t join oauth_grants g on g.id = t.grant_id
      where t.token_hash = ? and t.kind = 'refresh' and t.used_at is null and t.revoked_at is null
        and t.expires_at > now() and g.revoked_at is null`,
    [hashSecret(f.refreshToken)],
  );
  await publishedClient(app, named?.client_id, f.clientId, f.clientIp);
  const outcome = await transaction(app, async (tx) => {
    const t = await one<{
      grant_id: string;
      used_at: Date | null;
      live: boolean;
      client_id: string;
      grant_revoked: boolean;
      scope: string;
    }>(
      tx,
      `select t.grant_id, t.used_at, t.expires_at > now() and t.revoked_at is null as live, g.client_id, g.revoked_at is not null as grant_revoked, g.scope
         from oauth_tokens t join oauth_grants g on g.id = t.grant_id where t.token_hash = ? and t.kind = 'refresh' for update of t, g`,
      [hashSecret(f.refreshToken)],
    );
    if (!t || t.grant_revoked) return { error: 'the refresh token is unknown or revoked' };
    if (t.client_id !== f.clientId) return { error: 'the refresh token was issued to another client' };
    if (t.used_at) {
      await revokeGrant(tx, t.grant_id);
      return { error: 'the refresh token was already used; the whole grant is revoked (sign in again)' };
    }
    if (!t.live) return { error: 'the refresh token expired' };
    await rows(tx, `update oauth_tokens set used_at = now() where token_hash = ?`, [hashSecret(f.refreshToken)]);
    return { tokens: await issuePair(app, tx, t.grant_id, t.scope) };
  });
  if ('error' in outcome) throw new OAuthError('invalid_grant', outcome.error!);
  return outcome.tokens;
}

/** Ends a grant: it and every token issued under it (the app has to ask for consent again). */
export async function revokeGrant(tx: Db, grantId: string) {
  await rows(tx, `update oauth_grants set revoked_at = now() where id = ? and revoked_at is null`, [grantId]);
  await rows(tx, `update oauth_tokens set revoked_at = now() where grant_id = ? and revoked_at is null`, [grantId]);
}

/**
 * RFC 7009: an access token stops working; a refresh token takes its whole chain down. Unknown tokens are fine (200).
 */
export async function revokeMcpToken(app: AppContext, token: string, clientId?: string): Promise<void> {
  await transaction(app, async (tx) => {
    const t = await one<{ grant_id: string; kind: string; client_id: string }>(
      tx,
      `select t.grant_id, t.kind, g.client_id from oauth_tokens t join oauth_grants g on g.id = t.grant_id where t.token_hash = ?`,
      [hashSecret(token)],
    );
    if (!t || (clientId !== undefined && clientId !== t.client_id)) return;
    if (t.kind === 'refresh') await revokeGrant(tx, t.grant_id);
    else await rows(tx, `update oauth_tokens set revoked_at = now() where token_hash = ?`, [hashSecret(token)]);
  });
}

/** The principal of a live MCP access token (budget key: the grant), or undefined. */
export async function verifyMcpAccessToken(app: AppContext, token: string): Promise<Principal | undefined> {
  const t = await one<{ grant_id: string; drive_id: string; scope: string; client_name: string | null }>(
    app.orm.em.fork(),
    `select t.grant_id, g.drive_id, g.scope, c.client_name from oauth_tokens t join oauth_grants g on g.id = t.grant_id
       left join oauth_clients c on c.client_id = g.client_id
      where t.token_hash = ? and t.kind = 'access' and t.revoked_at is null and t.expires_at > now() and g.revoked_at is null`,
    [hashSecret(token)],
  );
  if (!t) return undefined;
  return {
    driveId: t.drive_id,
    identityId: null,
    scope: 'full',
    kind: 'mcp_oauth',
    credentialId: t.grant_id,
    credentialName: t.client_name,
    readOnly: t.scope === DRIVE_READ_SCOPE,
  };
}
