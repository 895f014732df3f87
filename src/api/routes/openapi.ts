import { Router } from 'express';
import type { AppContext } from '../../platform/context.js';
import { buildOpenApiDocument } from '../openapi.js';

export function openApiRouter(ctx: AppContext): Router {
  const router = Router();
  // Built on first request, after every router has registered its routes.
  let document: ReturnType<typeof buildOpenApiDocument> | undefined;
  router.get('/openapi.json', (_req, res) => {
    document ??= buildOpenApiDocument(ctx.config.http.baseUrl);
    res.json(document);
  });
  return router;
}
