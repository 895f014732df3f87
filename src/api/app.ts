import express, { type Express } from 'express';
import type { AppContext } from '../context.js';
import { bearerAuth } from './middleware/bearer.js';
import { errorHandler, unknownRoute } from './middleware/errors.js';
import { requestLog } from './middleware/request-log.js';
import { healthRouter } from './routes/health.js';
import { openApiRouter } from './routes/openapi.js';

/** Builds the Express app for a context; the listener lives in src/main.ts so tests can mount the app themselves. */
export function createApp(ctx: AppContext): Express {
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

  app.use(unknownRoute);
  app.use(errorHandler(ctx.logger));
  return app;
}
