import type { Router } from 'express';
import type { AppContext } from '../../platform/context.js';
import { applyPatch } from '../../files/patch/patch.js';
import { patchBodySchema, patchResultSchema } from '../../shapes/memory-schemas.js';
import { requestContextOf } from '../http/auth-context.js';
import { route, type RouteRegistry } from '../http/route.js';

/** OpenAI's apply_patch (V4A) on the drive (docs/decisions/apply-patch.md). */
export function patchRouter(routes: RouteRegistry, ctx: AppContext): Router {
  const router = routes.router();
  route(
    router,
    {
      method: 'post',
      path: '/v0/patch',
      summary: 'Apply a V4A patch (add, update with @@ context, move, delete) all or nothing',
      tags: ['artifacts'],
      auth: true,
      body: patchBodySchema,
      responses: { 200: { description: 'every file written, with its new version', schema: patchResultSchema } },
    },
    async ({ body, req }) => applyPatch(requestContextOf(ctx, req), body),
  );
  return router;
}
