import type { Router } from 'express';
import type { AppContext } from '../../platform/context.js';
import { runMemoryCommand } from '../../files/memory/memory-tool.js';
import { memoryCommandSchema, memoryResultSchema } from '../../shapes/memory-schemas.js';
import { requestContextOf } from '../http/auth-context.js';
import { route, type RouteRegistry } from '../http/route.js';

/**
 * The Anthropic memory tool's commands on the credential's memory prefix, memories/ unless its API key names another
 * (docs/decisions/memory-tool.md).
 */
export function memoryRouter(routes: RouteRegistry, ctx: AppContext): Router {
  const router = routes.router();
  route(
    router,
    {
      method: 'post',
      path: '/v0/memory',
      summary: 'Run one memory tool command (view, create, str_replace, insert, delete, rename) under /memories',
      tags: ['artifacts'],
      auth: true,
      body: memoryCommandSchema,
      responses: { 200: { description: 'the tool result string', schema: memoryResultSchema } },
    },
    async ({ body, req }) => runMemoryCommand(requestContextOf(ctx, req), body),
  );
  return router;
}
