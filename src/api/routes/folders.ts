import { type Router, type RequestHandler } from 'express';
import { z } from 'zod';
import type { AppContext } from '../../platform/context.js';
import { hasPrefix } from '../../lib/ids.js';
import { createFolder, deleteFolder, moveFolder, patchFolder, type FolderRef } from '../../files/folders.js';
import { folderOrImplied } from '../../files/refs.js';
import { folderDeleteOut, folderOut, folderReadOut } from '../../shapes/folders.js';
import { requestContextOf } from '../http/auth-context.js';
import { route, RouteRegistry } from '../http/route.js';
import {
  actorHeader,
  idOf,
  folderDeleteOutSchema,
  folderOutSchema,
  folderPath,
  folderReadOutSchema,
  queryFlag,
} from '../../shapes/artifact-schemas.js';

/** Folder endpoints of spec 4.3; each has an id form (declared first, id-shaped segments only) and a path form. */
const onlyFldId: RequestHandler = (req, _res, next) =>
  hasPrefix(String(req.params.fld_id), 'fld') ? next() : next('route');
const idParams = z.object({ fld_id: idOf('fld') });
const tags = ['folders'];
const patchBody = z.object({
  description: z.string().max(10_000).nullable().optional(),
  inherit_grants: z.boolean().nullable().optional(),
});
const moveBody = z.object({ path: folderPath("the folder's new path") });
const pathParams = z.object({ path: folderPath('folder path') });
const deleteQuery = z.object({
  recursive: queryFlag(),
});
const headers = z.object({ 'x-drive-actor': actorHeader });

export function foldersRouter(routes: RouteRegistry, ctx: AppContext): Router {
  const router = routes.router();
  const rc = (req: Parameters<typeof requestContextOf>[1]) => requestContextOf(ctx, req);
  const forms: [string, z.ZodObject, (p: Record<string, string>) => FolderRef, RequestHandler[]][] = [
    [':fld_id', idParams, (p) => ({ id: p.fld_id }), [onlyFldId]],
    ['*path', pathParams, (p) => ({ path: p.path }), []],
  ];

  for (const [seg, params, ref, guard] of forms) {
    route(
      router,
      {
        method: 'post',
        path: `/v0/folders/${seg}/move`,
        summary: 'Move a folder with all its live descendants',
        tags,
        auth: true,
        params,
        body: moveBody,
        headers,
        responses: { 200: { description: 'folder record', schema: folderOutSchema } },
      },
      async ({ params: p, body, req }) =>
        folderOut(await moveFolder(rc(req), { ref: ref(p as Record<string, string>), path: body.path })),
      ...guard,
    );
  }
  // Declared after the moves, so a path ending in `/move` is a move.
  route(
    router,
    {
      method: 'post',
      path: '/v0/folders/*path',
      summary: 'Create a folder (idempotent)',
      tags,
      auth: true,
      params: pathParams,
      body: z.object({ description: z.string().max(10_000).nullable().optional() }),
      headers,
      responses: { 201: { description: 'folder record', schema: folderOutSchema } },
    },
    async ({ params, body, req }) =>
      folderOut(await createFolder(rc(req), { path: params.path, description: body.description })),
  );

  for (const [seg, params, ref, guard] of forms) {
    for (const suffix of ['/meta', '']) {
      route(
        router,
        {
          method: 'get',
          path: `/v0/folders/${seg}${suffix}`,
          summary: 'Get a folder record, or a folder only paths imply (implied: true)',
          tags,
          auth: true,
          params,
          responses: {
            200: { description: 'folder record, or an implied folder', schema: folderReadOutSchema },
          },
        },
        async ({ params: p, req }) => folderReadOut(await folderOrImplied(rc(req), ref(p as Record<string, string>))),
        ...guard,
      );
    }
    route(
      router,
      {
        method: 'patch',
        path: `/v0/folders/${seg}`,
        summary: 'Edit folder metadata (absent unchanged, null clears)',
        tags,
        auth: true,
        params,
        body: patchBody,
        headers,
        responses: { 200: { description: 'folder record', schema: folderOutSchema } },
      },
      async ({ params: p, body, req }) =>
        folderOut(
          await patchFolder(rc(req), {
            ref: ref(p as Record<string, string>),
            description: body.description,
            inheritGrants: body.inherit_grants,
          }),
        ),
      ...guard,
    );
    route(
      router,
      {
        method: 'delete',
        path: `/v0/folders/${seg}`,
        summary: 'Soft-delete a folder (recursive=true when it has live descendants)',
        tags,
        auth: true,
        params,
        query: deleteQuery,
        headers,
        responses: { 200: { description: 'folder delete result', schema: folderDeleteOutSchema } },
      },
      async ({ params: p, query, req }) =>
        folderDeleteOut(
          ctx.config,
          await deleteFolder(rc(req), { ref: ref(p as Record<string, string>), recursive: query.recursive }),
        ),
      ...guard,
    );
  }
  return router;
}
