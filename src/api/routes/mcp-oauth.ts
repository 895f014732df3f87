import express, { Router, type NextFunction, type Request, type Response } from 'express';
import { z } from 'zod';
import type { AppContext } from '../../platform/context.js';
import { registerClient, revokeMcpToken } from '../../identity/mcp-oauth.js';
import { DRIVE_SCOPES } from '../../identity/scopes.js';
import { baseUrlAsReached } from '../../identity/mcp-resource.js';
import { OAuthError } from '../../identity/oauth-error.js';
import type { AnyRouteSpec, RouteRegistry } from '../http/route.js';
import { oauthErrorOut, oauthErrors } from './oauth-token.js';

/**
 * OAuth for MCP clients, the API side: protected-resource metadata (RFC 9728, plain and
 * path-inserted for /mcp), dynamic client registration (RFC 7591) and revocation (RFC 7009).
 * The consent page (/oauth2/authorize) is in src/web; the token grants in oauth-token.ts.
 */
/** Documented in /openapi.json like every route; answered below with RFC 7591/7009/9728 shapes. */
const OAUTH_ROUTES: AnyRouteSpec[] = [
  {
    method: 'get',
    path: '/.well-known/oauth-protected-resource',
    summary: 'Protected-resource metadata for the MCP endpoint (RFC 9728)',
    tags: ['mcp'],
    responses: { 200: { description: 'metadata' } },
  },
  {
    method: 'get',
    path: '/.well-known/oauth-protected-resource/mcp',
    summary: 'Protected-resource metadata, path-inserted form for /mcp (RFC 9728)',
    tags: ['mcp'],
    responses: { 200: { description: 'metadata' } },
  },
  {
    method: 'post',
    path: '/oauth2/register',
    summary: 'Dynamic client registration for MCP clients (RFC 7591; public clients, PKCE)',
    tags: ['mcp'],
    body: z.looseObject({
      redirect_uris: z.array(z.string()),
      client_name: z.string().optional(),
      token_endpoint_auth_method: z.literal('none').optional(),
    }),
    // RFC 7591 errors are {error, error_description}, not the /v0 envelope.
    ownErrors: true,
    responses: {
      201: { description: 'client information (client_id; no secret)' },
      400: { description: 'invalid_redirect_uri or invalid_client_metadata', schema: oauthErrorOut },
      429: {
        description: 'rate_limited: too many registrations from this address (Retry-After)',
        schema: oauthErrorOut,
      },
    },
  },
  {
    method: 'post',
    path: '/oauth2/revoke',
    summary: 'Token revocation (RFC 7009): an MCP access token, or a refresh token with its whole chain',
    tags: ['mcp'],
    body: z.object({ token: z.string(), token_type_hint: z.string().optional(), client_id: z.string().optional() }),
    bodyContentType: 'application/x-www-form-urlencoded',
    // RFC 7009 errors are {error, error_description}, not the /v0 envelope.
    ownErrors: true,
    responses: {
      200: { description: 'revoked, or the token was unknown' },
      400: { description: 'invalid_request', schema: oauthErrorOut },
    },
  },
];

/** RFC 9728 metadata; `resource` in the loopback spelling the request used (the authorization server stays one). */
export function protectedResourceMetadata(ctx: AppContext, host?: string) {
  return {
    resource: `${baseUrlAsReached(ctx, host)}/mcp`,
    resource_name: 'Agent Artifact Drive (MCP)',
    authorization_servers: [ctx.config.http.baseUrl],
    scopes_supported: [...DRIVE_SCOPES],
    bearer_methods_supported: ['header'],
  };
}

export function mcpOAuthRouter(routes: RouteRegistry, ctx: AppContext): Router {
  for (const spec of OAUTH_ROUTES) routes.document(spec);
  const router = routes.router();
  for (const path of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp']) {
    router.get(path, (req, res) => res.json(protectedResourceMetadata(ctx, req.get('host'))));
  }
  const wrap =
    (fn: (req: Request, res: Response) => Promise<void>) => (req: Request, res: Response, next: NextFunction) => {
      fn(req, res).catch(next);
    };
  router.post(
    '/oauth2/register',
    express.json({ limit: '16kb' }),
    wrap(async (req, res) => {
      if (!req.body || typeof req.body !== 'object')
        throw new OAuthError('invalid_client_metadata', 'send the client metadata as a JSON object');
      res.setHeader('Cache-Control', 'no-store');
      res.status(201).json(await registerClient(ctx, req.body as Record<string, unknown>, req.ip ?? 'unknown'));
    }),
    oauthErrors,
  );
  router.post(
    '/oauth2/revoke',
    express.urlencoded({ extended: false, limit: '16kb', parameterLimit: 10 }),
    wrap(async (req, res) => {
      const body = (req.body ?? {}) as Record<string, unknown>;
      if (typeof body.token !== 'string' || !body.token) throw new OAuthError('invalid_request', 'token is required');
      await revokeMcpToken(ctx, body.token, typeof body.client_id === 'string' ? body.client_id : undefined);
      res.status(200).json({});
    }),
    oauthErrors,
  );
  return router;
}
