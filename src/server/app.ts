import express, { type Express } from 'express';
import { errorHandler, methodGuard, oauthRouter, restRouter, RouteRegistry, unknownRoute } from '../api/index.js';
import { fenceHeader } from '../edge/fence-header.js';
import { inputGate } from '../edge/input-gate.js';
import { requestLog } from '../edge/request-log.js';
import { requestMetrics } from '../edge/request-metrics.js';
import { mcpRouter } from '../mcp/server.js';
import type { AppContext } from '../platform/context.js';
import { bindSearchToArtifacts } from '../search/artifact-hook-binding.js';
import type { SearchEngine } from '../search/engine.js';
import { createEmbedder, createSearchEngine } from '../search/index.js';
import { GraphObjects } from '../storage/graph-objects.js';
import { SearchService } from '../search/service.js';
import { usageRecorderFor } from '../search/usage.js';
import { webFallback, webRouter } from '../web/index.js';

/**
 * The API process's composition root: the three doors (REST, MCP, web pages) mounted side by side behind the shared
 * edge (request log, input gate, OPTIONS/405), each answering its own errors; the REST envelope answers the rest.
 */
export interface AppOptions {
  /** The search service; built from the configuration when absent (tests pass their own). */
  search?: SearchService;
}

/** The configured search engine of an API process, on the process's one pool, with large drives' graphs from S3. */
export function defaultSearchEngine(ctx: AppContext): SearchEngine {
  return createSearchEngine(ctx.config, ctx.pool, {
    objects: new GraphObjects(ctx.s3, ctx.config.s3.bucket),
    onError: (err) => ctx.logger.warn({ err }, 'search: a semantic graph could not be opened; its drive is scanned'),
  });
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
  // Every artifact change made through this app's context reaches the search index at once.
  const engine = defaultSearchEngine(ctx);
  bindSearchToArtifacts(ctx.artifactChanges, engine);
  const search = opts.search ?? defaultSearchService(ctx, engine);
  app.disable('x-powered-by');
  app.set('trust proxy', 'loopback');
  app.use(requestLog(ctx.logger));
  app.use(requestMetrics());
  app.use(inputGate);
  app.use(fenceHeader);
  // OPTIONS and 405 answer from the declared routes, ahead of authentication.
  // The routes this app declares: every REST router records into it; the 405 guard and /openapi.json read it.
  const routes = new RouteRegistry();
  app.use(methodGuard(routes));

  app.use(oauthRouter(routes, ctx));
  // Server-rendered pages (sign-in, claim, dashboard, viewer): form bodies, HTML errors.
  app.use(webRouter(ctx, search));
  // MCP (Streamable HTTP): its own bearer rule (assertions too), JSON parser and 401 shape.
  app.use(mcpRouter(ctx, search));
  app.use(restRouter(routes, ctx, search));
  // A browser asking for a page nothing answered: the HTML 404 page (API clients keep the JSON one below).
  app.use(webFallback(ctx));

  app.use(unknownRoute);
  app.use(errorHandler(ctx.logger));
  return app;
}
