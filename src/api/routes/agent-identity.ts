import { type Router, type RequestHandler } from 'express';
import { DRIVE_SCOPES } from '../../identity/scopes.js';
import { z } from 'zod';
import type { AppContext } from '../../platform/context.js';
import { startClaim } from '../../identity/claims.js';
import { registerAgent } from '../../identity/identities.js';
import { registrationOut } from '../../shapes/identity.js';
import { AppError } from '../../lib/errors.js';
import { route, RouteRegistry } from '../http/route.js';

const registerBody = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('anonymous') }),
  z.strictObject({
    type: z.literal('identity_assertion'),
    agent_provider: z.string().min(1).max(64),
    assertion: z.string().min(1).max(8192),
  }),
]);

const anonymousOut = z.object({
  identity_assertion: z.string(),
  claim_token: z.string(),
  claim_metadata: z.object({ claim_endpoint: z.url(), supported_email_hints: z.boolean() }),
  drive_id: z.string(),
  agent_identity_id: z.string(),
  scope: z.enum(['pre_claim', 'full']),
  expires_at: z.iso.datetime(),
});

const claimBody = z.strictObject({
  claim_token: z.string().min(1).max(256),
  // A display hint only (REFERENCE §4.10); never enforced.
  email: z.string().max(320).optional(),
});

const claimOut = z.object({
  claim_attempt_token: z.string(),
  user_code: z.string().length(8),
  verification_uri: z.url(),
  verification_uri_complete: z.url(),
  expires_at: z.iso.datetime(),
  interval: z.number().int(),
});

/** JSON bodies only: anything else is a clear 415 rather than an empty-body validation error. */
const requireJson: RequestHandler = (req, _res, next) => {
  next(
    req.is('application/json')
      ? undefined
      : new AppError('INVALID_BODY', 'Content-Type must be application/json').withStatus(415),
  );
};

/** Discovery, agent registration and claim initiation (outside /v0, no bearer). */
export function agentIdentityRouter(routes: RouteRegistry, ctx: AppContext): Router {
  const router = routes.router();
  const { baseUrl } = ctx.config.http;

  route(
    router,
    {
      method: 'get',
      path: '/.well-known/oauth-authorization-server',
      summary: 'Authorization server metadata (RFC 8414) with the agent_auth block',
      tags: ['agent auth'],
      responses: {
        200: { description: 'metadata', schema: z.looseObject({ issuer: z.string(), agent_auth: z.looseObject({}) }) },
      },
    },
    () => ({
      issuer: baseUrl,
      token_endpoint: `${baseUrl}/oauth2/token`,
      // OAuth 2.1 for MCP clients (browser sign-in of the drive owner): code + PKCE S256, DCR, revocation.
      authorization_endpoint: `${ctx.config.http.webUrl}/oauth2/authorize`,
      registration_endpoint: `${baseUrl}/oauth2/register`,
      // An https client_id naming the client's own metadata document (src/identity/client-metadata.ts).
      client_id_metadata_document_supported: true,
      revocation_endpoint: `${baseUrl}/oauth2/revoke`,
      code_challenge_methods_supported: ['S256'],
      grant_types_supported: [
        'urn:ietf:params:oauth:grant-type:jwt-bearer',
        'claim',
        'authorization_code',
        'refresh_token',
      ],
      token_endpoint_auth_methods_supported: ['none'],
      revocation_endpoint_auth_methods_supported: ['none'],
      response_types_supported: ['code'],
      scopes_supported: ['pre_claim', 'full', ...DRIVE_SCOPES],
      agent_auth: {
        identity_endpoint: `${baseUrl}/agent/identity`,
        claim_endpoint: `${baseUrl}/agent/identity/claim`,
        identity_types_supported: ['anonymous', 'identity_assertion'],
        identity_assertion: {
          assertion_types_supported: ['urn:ietf:params:oauth:token-type:id-jag'],
          providers: Object.keys(ctx.config.idJagProviders),
        },
        claim_verification_uri: `${ctx.config.http.webUrl}/claim`,
      },
    }),
  );

  route(
    router,
    {
      method: 'post',
      path: '/agent/identity',
      summary: "Register an agent identity: anonymous (new unclaimed drive) or with an ID-JAG (the user's drive)",
      tags: ['agent auth'],
      body: registerBody,
      invalidBody: 'INVALID_BODY',
      errors: [
        'INVALID_BODY',
        'UNKNOWN_PROVIDER',
        'ID_JAG_INVALID',
        'ID_JAG_EMAIL_UNVERIFIED',
        'RATE_LIMITED',
        'AGENT_AUTH_NOT_CONFIGURED',
      ],
      responses: {
        201: { description: 'identity created', schema: anonymousOut },
        400: { description: 'INVALID_BODY or UNKNOWN_PROVIDER' },
        401: { description: 'ID_JAG_INVALID' },
        403: { description: 'ID_JAG_EMAIL_UNVERIFIED' },
        429: { description: 'registration rate for this client IP exceeded' },
        503: { description: 'AGENT_AUTH_NOT_CONFIGURED' },
      },
    },
    async ({ body, req }) => {
      return registrationOut(ctx.config, await registerAgent(ctx, req.ip ?? 'unknown', body));
    },
    requireJson,
  );

  route(
    router,
    {
      method: 'post',
      path: '/agent/identity/claim',
      summary: 'Start the claim ceremony: returns the code and link to show the human',
      tags: ['agent auth'],
      body: claimBody,
      invalidBody: 'INVALID_BODY',
      errors: ['INVALID_BODY', 'CLAIM_TOKEN_INVALID', 'ALREADY_CLAIMED', 'AGENT_AUTH_NOT_CONFIGURED'],
      responses: {
        200: { description: 'ceremony started; poll /oauth2/token with grant_type=claim', schema: claimOut },
        401: { description: 'CLAIM_TOKEN_INVALID' },
        409: { description: 'ALREADY_CLAIMED' },
      },
    },
    ({ body }) => startClaim(ctx, body.claim_token),
    requireJson,
  );

  return router;
}
