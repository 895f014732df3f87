import express, { Router, type ErrorRequestHandler, type NextFunction, type Request, type Response } from 'express';
import { z } from 'zod';
import { OAuthError } from '../../identity/oauth-error.js';
import { AgentAuthNotConfigured } from '../../identity/tokens.js';
import type { AppContext } from '../../platform/context.js';
import { claimGrant, exchangeAssertion } from '../../identity/identities.js';
import { accessTokenOut, claimGrantOut } from '../../shapes/identity.js';
import { exchangeAuthorizationCode, refreshMcpToken } from '../../identity/mcp-oauth.js';
import { AppError } from '../../lib/errors.js';
import { requestedReadOnly } from '../../identity/scopes.js';
import type { AnyRouteSpec, RouteRegistry } from '../http/route.js';

export const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
export const CLAIM_GRANT = 'claim';

const MAX_FIELD = 8192;

const tokenForm = z.object({
  grant_type: z
    .string()
    .describe(
      `\`${JWT_BEARER_GRANT}\`, \`${CLAIM_GRANT}\`, or for MCP clients \`authorization_code\` / \`refresh_token\``,
    ),
  assertion: z.string().max(MAX_FIELD).optional().describe('identity_assertion (jwt-bearer grant)'),
  claim_token: z.string().max(256).optional().describe('claim grant'),
  claim_attempt_token: z.string().max(256).optional().describe('claim grant: poll one specific attempt (optional)'),
  code: z.string().max(256).optional().describe('authorization_code grant (MCP OAuth)'),
  code_verifier: z.string().max(128).optional().describe('authorization_code grant: PKCE verifier'),
  redirect_uri: z.string().max(2000).optional().describe('authorization_code grant'),
  client_id: z
    .string()
    .max(2000)
    .optional()
    .describe(
      'authorization_code and refresh_token grants: a registered id, or the URL of a client ID metadata document',
    ),
  refresh_token: z.string().max(256).optional().describe('refresh_token grant (rotates; reuse revokes the chain)'),
  scope: z
    .string()
    .max(200)
    .optional()
    .describe('jwt-bearer grant: `drive:read` narrows the access token to reads (`drive`, or none: read and write)'),
});

const tokenOut = z.object({
  access_token: z.string(),
  token_type: z.literal('Bearer'),
  expires_in: z.number().int(),
  scope: z
    .enum(['pre_claim', 'full', 'pre_claim drive:read', 'full drive:read', 'drive', 'drive:read'])
    .describe(
      'claim state (`pre_claim`, `full`) and `drive:read` for a read-only token; MCP OAuth: `drive` or `drive:read`',
    ),
  refresh_token: z.string().optional().describe('MCP OAuth grants only'),
  identity_assertion: z.string().optional(),
  identity_assertion_expires_at: z.iso.datetime().optional(),
});

export const oauthErrorOut = z.object({ error: z.string(), error_description: z.string() });

// Documented in /openapi.json like every route; handled below because its errors use the RFC 6749 shape.
const TOKEN_ROUTE = {
  method: 'post',
  path: '/oauth2/token',
  summary: 'Token endpoint: jwt-bearer exchange (RFC 7523) and the claim grant',
  tags: ['agent auth'],
  body: tokenForm,
  bodyContentType: 'application/x-www-form-urlencoded',
  ownErrors: true,
  responses: {
    200: { description: 'access token (and, for the claim grant, a new 90-day identity assertion)', schema: tokenOut },
    400: {
      description:
        'RFC 6749 error: invalid_request, invalid_grant, invalid_client, invalid_scope, unsupported_grant_type, authorization_pending, expired_token, access_denied',
      schema: oauthErrorOut,
    },
    429: {
      description:
        'rate_limited: too many client ID metadata documents fetched for this address or this process (Retry-After)',
      schema: oauthErrorOut,
    },
    503: { description: 'temporarily_unavailable: agent auth is not configured', schema: oauthErrorOut },
  },
} as AnyRouteSpec;

function field(body: Record<string, unknown>, name: string): string | undefined {
  const v = body[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'string') throw new OAuthError('invalid_request', `${name} must be given once as a string`);
  if (v.length > MAX_FIELD) throw new OAuthError('invalid_request', `${name} is too long`);
  return v;
}

function required(body: Record<string, unknown>, name: string): string {
  const v = field(body, name);
  if (!v) throw new OAuthError('invalid_request', `${name} is required`);
  return v;
}

/** RFC 6749 §5.2 error body for everything thrown here, including body-parser failures. */
const oauthErrors: ErrorRequestHandler = (err, _req, res, next) => {
  let e: OAuthError | undefined;
  if (err instanceof OAuthError) e = err;
  else if (
    err instanceof AgentAuthNotConfigured ||
    (err instanceof AppError && err.code === 'AGENT_AUTH_NOT_CONFIGURED')
  ) {
    e = new OAuthError('temporarily_unavailable', 'agent auth is not configured on this server; retry later', 503);
  } else if (err?.type === 'entity.too.large') e = new OAuthError('invalid_request', 'request body is too large');
  else if (typeof err?.type === 'string' && err.type.startsWith('entity.'))
    e = new OAuthError('invalid_request', 'request body could not be parsed');
  // Any other client error of the body parser (too many parameters, a bad encoding) is the client's too.
  else if (err?.expose && typeof err.status === 'number' && err.status >= 400 && err.status < 500)
    e = new OAuthError('invalid_request', 'request body could not be read');
  if (!e) return next(err);
  res.setHeader('Cache-Control', 'no-store');
  if (e.retryAfterS !== undefined) res.setHeader('Retry-After', String(e.retryAfterS));
  else if (e.status === 503) res.setHeader('Retry-After', '60');
  res.status(e.status).json({ error: e.code, error_description: e.description });
};

export { oauthErrors };

export function oauthTokenRouter(routes: RouteRegistry, ctx: AppContext): Router {
  routes.document(TOKEN_ROUTE);
  const router = routes.router();
  router.post(
    '/oauth2/token',
    express.urlencoded({ extended: false, limit: '16kb', parameterLimit: 20 }),
    async (req: Request, res: Response, next: NextFunction) => {
      try {
        if (!req.is('application/x-www-form-urlencoded')) {
          throw new OAuthError('invalid_request', 'Content-Type must be application/x-www-form-urlencoded');
        }
        const body = (req.body ?? {}) as Record<string, unknown>;
        const grantType = required(body, 'grant_type');
        let result;
        if (grantType === JWT_BEARER_GRANT) {
          const readOnly = requestedReadOnly(field(body, 'scope')) ?? false;
          result = accessTokenOut(await exchangeAssertion(ctx, required(body, 'assertion'), readOnly));
        } else if (grantType === CLAIM_GRANT)
          result = claimGrantOut(
            await claimGrant(ctx, required(body, 'claim_token'), field(body, 'claim_attempt_token')),
          );
        else if (grantType === 'authorization_code') {
          result = await exchangeAuthorizationCode(ctx, {
            code: required(body, 'code'),
            clientId: required(body, 'client_id'),
            redirectUri: field(body, 'redirect_uri'),
            codeVerifier: required(body, 'code_verifier'),
            clientIp: req.ip ?? 'unknown',
          });
        } else if (grantType === 'refresh_token') {
          result = await refreshMcpToken(ctx, {
            refreshToken: required(body, 'refresh_token'),
            clientId: required(body, 'client_id'),
            clientIp: req.ip ?? 'unknown',
          });
        } else
          throw new OAuthError('unsupported_grant_type', `grant_type '${grantType.slice(0, 100)}' is not supported`);
        res.setHeader('Cache-Control', 'no-store');
        res.status(200).json(result);
      } catch (err) {
        next(err);
      }
    },
    oauthErrors,
  );
  return router;
}
