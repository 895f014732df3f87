import express, { type Express } from 'express';
import type { IncomingMessage } from 'node:http';
import type { AppContext } from '../platform/context.js';
import { webRouter } from '../web/index.js';
import { bearerAuth } from './middleware/bearer.js';
import { errorHandler, unknownRoute } from './middleware/errors.js';
import { methodGuard } from './middleware/methods.js';
import { writeBudget } from './middleware/rate-limit.js';
import { inputGate, rejectNulInBody } from './middleware/input-gate.js';
import { requestLog } from './middleware/request-log.js';
import { agentIdentityRouter } from './routes/agent-identity.js';
import { artifactContentRouter } from './routes/artifact-content.js';
import { artifactsRouter } from './routes/artifacts.js';
import { drivesMeRouter } from './routes/drives-me.js';
import { drivesRouter } from './routes/drives.js';
import { eventsRouter } from './routes/events.js';
import { foldersRouter } from './routes/folders.js';
import { healthRouter } from './routes/health.js';
import { oauthTokenRouter } from './routes/oauth-token.js';
import { mcpOAuthRouter } from './routes/mcp-oauth.js';
import { openApiRouter } from './routes/openapi.js';
import { uploadsRouter } from './routes/uploads.js';
import { uploadTokenRouter } from './routes/upload-token.js';
import { mcpRouter } from '../mcp/server.js';
import { searchRouter } from './routes/search.js';
import { sharingRouter } from './routes/sharing.js';
import { bindSearchToArtifacts } from '../search/artifact-hook-binding.js';
import type { SearchEngine } from '../search/engine.js';
import { createEmbedder, createSearchEngine } from '../search/index.js';
import { SearchService } from '../search/service.js';
import { usageRecorderFor } from '../search/usage.js';
import { projectsRouter } from './routes/projects.js';
import { feedbackRouter } from './routes/feedback.js';

export interface AppOptions {
  /** The search service; built from the configuration when absent (tests pass their own). */
  search?: SearchService;
}

/** The configured search engine of a process, on the process's one pool. */
export function defaultSearchEngine(ctx: AppContext): SearchEngine {
  return createSearchEngine(ctx.config, ctx.pool);
}

/** The search service of an API process: configured engine and embedder, usage counted through src/search/usage.ts. */
export function defaultSearchService(ctx: AppContext, engine: SearchEngine = defaultSearchEngine(ctx)): SearchService {
  return new SearchService({
    engine,
    embedder: createEmbedder(ctx.config),
    usage: usageRecorderFor(ctx),
    onWarning: (message, err) => ctx.logger.warn({ err }, message),
  });
}

/** Builds the Express app for a context; the listener lives in src/main.ts so tests can mount the app themselves. */
export function createApp(ctx: AppContext, opts: AppOptions = {}): Express {
  const app = express();
  // Every artifact change made through this app reaches the search index (one binding per process).
  const engine = defaultSearchEngine(ctx);
  bindSearchToArtifacts(engine);
  app.disable('x-powered-by');
  app.set('trust proxy', 'loopback');
  app.use(requestLog(ctx.logger));
  app.use(inputGate);
  // OPTIONS and 405 answer from the declared routes, ahead of authentication.
  app.use(methodGuard());

  // Form-encoded with RFC 6749 errors, so it parses its own body before the JSON parser sees it.
  app.use(oauthTokenRouter(ctx));
  // MCP OAuth: protected-resource metadata, client registration, revocation (the consent page is in src/web).
  app.use(mcpOAuthRouter(ctx));
  // Server-rendered pages (sign-in, claim, dashboard): form bodies, HTML errors.
  app.use(webRouter(ctx));

  const search = opts.search ?? defaultSearchService(ctx, engine);
  // MCP (Streamable HTTP): its own bearer rule (assertions too), JSON parser and 401 shape.
  app.use(mcpRouter(ctx, search));

  // Public, unauthenticated routes.
  // Raw-body uploads (PUT /v0/artifacts/...) stream their body themselves, whatever its content type.
  app.use(
    express.json({
      limit: '1mb',
      type: (req) => !isRawUpload(req) && JSON_TYPE.test(req.headers['content-type'] ?? ''),
    }),
  );
  app.use(rejectNulInBody);
  app.use(healthRouter(ctx));
  app.use(openApiRouter(ctx));
  app.use(agentIdentityRouter(ctx));
  // Token uploads: the single-use token in the URL is the credential (no Authorization header).
  app.use(uploadTokenRouter(ctx));

  // Drive delete/restore/trash accept a soft-deleted drive's credentials, so they sit ahead of the /v0 check.
  app.use(drivesRouter(ctx, bearerAuth(ctx, { allowDeletedDrive: true }), writeBudget(ctx)));

  // Everything under /v0 needs a bearer credential and is metered; routers below declare full /v0/... paths.
  app.use('/v0', bearerAuth(ctx), writeBudget(ctx));
  app.use(drivesMeRouter(ctx));
  app.use(artifactsRouter(ctx));
  app.use(artifactContentRouter(ctx));
  app.use(foldersRouter(ctx));
  app.use(eventsRouter(ctx));
  app.use(sharingRouter(ctx));
  app.use(uploadsRouter(ctx));
  app.use(projectsRouter(ctx));
  app.use(feedbackRouter(ctx));
  app.use(searchRouter(ctx, search));

  app.use(unknownRoute);
  app.use(errorHandler(ctx.logger));
  return app;
}

const isRawUpload = (req: IncomingMessage) => req.method === 'PUT' && /^\/v0\/(artifacts|upload)\//.test(req.url ?? '');
const JSON_TYPE = /^application\/([\w.+-]*\+)?json\s*(;|$)/i;
