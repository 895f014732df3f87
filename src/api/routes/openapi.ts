import type { RouteRegistry } from '../http/route.js';
import type { Router } from 'express';
import type { AppContext } from '../../platform/context.js';
import { buildOpenApiDocument } from '../openapi.js';

export function openApiRouter(routes: RouteRegistry, ctx: AppContext): Router {
  const router = routes.router();
  // Built on first request, after every router has registered its routes.
  let document: ReturnType<typeof buildOpenApiDocument> | undefined;
  router.get('/openapi.json', (_req, res) => {
    document ??= buildOpenApiDocument(routes, ctx.config.http.baseUrl);
    res.json(document);
  });
  return router;
}
