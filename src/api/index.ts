import express, { Router } from 'express';
import type { IncomingMessage } from 'node:http';
import { rejectNulInBody } from '../edge/input-gate.js';
import type { AppContext } from '../platform/context.js';
import type { SearchService } from '../search/service.js';
import type { RouteRegistry } from './http/route.js';
import { bearerAuth } from './middleware/bearer.js';
import { writeBudget } from './middleware/rate-limit.js';
import { runScope } from './middleware/run.js';
import { agentIdentityRouter } from './routes/agent-identity.js';
import { apiKeysRouter } from './routes/api-keys.js';
import { artifactContentRouter } from './routes/artifact-content.js';
import { artifactEditRouter } from './routes/artifact-edit.js';
import { artifactsRouter } from './routes/artifacts.js';
import { drivesMeRouter } from './routes/drives-me.js';
import { drivesRouter } from './routes/drives.js';
import { eventsRouter } from './routes/events.js';
import { feedbackRouter } from './routes/feedback.js';
import { foldersRouter } from './routes/folders.js';
import { healthRouter } from './routes/health.js';
import { mcpOAuthRouter } from './routes/mcp-oauth.js';
import { oauthTokenRouter } from './routes/oauth-token.js';
import { openApiRouter } from './routes/openapi.js';
import { pathsRouter } from './routes/paths.js';
import { memoryRouter } from './routes/memory.js';
import { patchRouter } from './routes/patch.js';
import { projectsRouter } from './routes/projects.js';
import { runsRouter } from './routes/runs.js';
import { leasesRouter } from './routes/leases.js';
import { searchRouter } from './routes/search.js';
import { sharingRouter } from './routes/sharing.js';
import { uploadTokenRouter } from './routes/upload-token.js';
import { uploadsRouter } from './routes/uploads.js';
import { webhooksRouter } from './routes/webhooks.js';

export { methodGuard } from './middleware/methods.js';
export { RouteRegistry } from './http/route.js';
export { errorHandler, unknownRoute } from './middleware/errors.js';

/**
 * The REST door's OAuth endpoints: the token endpoint (form-encoded, RFC 6749 errors, so it parses its own body
 * before any JSON parser) and the MCP OAuth metadata, registration and revocation (the consent page is a web page).
 */
export function oauthRouter(routes: RouteRegistry, ctx: AppContext): Router {
  return Router().use(oauthTokenRouter(routes, ctx), mcpOAuthRouter(routes, ctx));
}

/** The REST door: public routes, then everything under /v0 behind a bearer credential and the write budget. */
export function restRouter(routes: RouteRegistry, ctx: AppContext, search: SearchService): Router {
  const router = Router();
  // No REST answer is stored by a browser or a proxy unless its route says otherwise (downloads do): several carry a
  // secret shown once (webhook secrets, share keys, agent credentials, upload and download URLs), and a default
  // cannot forget one (issue 37).
  router.use((_req, res, next) => {
    res.setHeader('Cache-Control', 'no-store');
    next();
  });
  // Raw-body uploads (PUT /v0/artifacts/...) stream their body themselves, whatever its content type.
  router.use(
    express.json({
      limit: '1mb',
      type: (req) => !isRawUpload(req) && JSON_TYPE.test(req.headers['content-type'] ?? ''),
    }),
  );
  router.use(rejectNulInBody);
  router.use(healthRouter(routes, ctx), openApiRouter(routes, ctx), agentIdentityRouter(routes, ctx));
  // Token uploads: the single-use token in the URL is the credential (no Authorization header).
  router.use(uploadTokenRouter(routes, ctx));

  // Drive delete/restore/trash accept a soft-deleted drive's credentials, so they sit ahead of the /v0 check.
  router.use(drivesRouter(routes, ctx, bearerAuth(ctx, { allowDeletedDrive: true }), writeBudget(ctx)));

  // Everything under /v0 needs a bearer credential and is metered; routers below declare full /v0/... paths.
  router.use('/v0', bearerAuth(ctx), runScope(ctx), writeBudget(ctx));
  router.use(
    drivesMeRouter(routes, ctx),
    apiKeysRouter(routes, ctx),
    artifactsRouter(routes, ctx),
    artifactContentRouter(routes, ctx),
    artifactEditRouter(routes, ctx),
    pathsRouter(routes),
    memoryRouter(routes, ctx),
    patchRouter(routes, ctx),
    foldersRouter(routes, ctx),
    eventsRouter(routes, ctx),
    runsRouter(routes, ctx),
    leasesRouter(routes, ctx),
    webhooksRouter(routes, ctx),
    sharingRouter(routes, ctx),
    uploadsRouter(routes, ctx),
    projectsRouter(routes, ctx),
    feedbackRouter(routes, ctx),
    searchRouter(routes, ctx, search),
  );
  return router;
}

const isRawUpload = (req: IncomingMessage) => req.method === 'PUT' && /^\/v0\/(artifacts|upload)\//.test(req.url ?? '');
const JSON_TYPE = /^application\/([\w.+-]*\+)?json\s*(;|$)/i;
