import express, { type Express } from 'express';
import type { AppContext } from '../context.js';
import { bearerAuth } from './middleware/bearer.js';
import { errorHandler, unknownRoute } from './middleware/errors.js';
import { requestLog } from './middleware/request-log.js';
import { healthRouter } from './routes/health.js';
import { openApiRouter } from './routes/openapi.js';
import { searchRouter } from './routes/search.js';
import { createEmbedder, createSearchEngine } from '../search/index.js';
import { SearchService } from '../search/service.js';
import { noUsageRecorder } from '../search/usage.js';

export interface AppOptions {
  /** The search service; built from the configuration when absent (tests pass their own). */
  search?: SearchService;
}

/** The search service of an API process: configured engine and embedder, usage counted through src/search/usage.ts. */
export function defaultSearchService(ctx: AppContext): SearchService {
  return new SearchService({
    engine: createSearchEngine(ctx.config, { onIdleError: (err) => ctx.logger.warn({ err }, 'search: idle PostgreSQL connection failed') }),
    embedder: createEmbedder(ctx.config),
    usage: noUsageRecorder,
    onWarning: (message, err) => ctx.logger.warn({ err }, message),
  });
}

/** Builds the Express app for a context; the listener lives in src/main.ts so tests can mount the app themselves. */
export function createApp(ctx: AppContext, opts: AppOptions = {}): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', 'loopback');
  app.use(requestLog(ctx.logger));

  // Public, unauthenticated routes.
  app.use(express.json({ limit: '1mb' }));
  app.use(healthRouter(ctx));
  app.use(openApiRouter(ctx));

  // Everything under /v0 needs a bearer credential; routers below declare full /v0/... paths.
  app.use('/v0', bearerAuth(ctx));
  app.use(searchRouter(ctx, opts.search ?? defaultSearchService(ctx), (artId) => `${ctx.config.http.webUrl}/a/${artId}`));

  app.use(unknownRoute);
  app.use(errorHandler(ctx.logger));
  return app;
}
