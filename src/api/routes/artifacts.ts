import { type Router, type Request, type RequestHandler, type Response } from 'express';
import { z } from 'zod';
import type { AppContext } from '../../platform/context.js';
import { hasPrefix } from '../../lib/ids.js';
import { whileReadingBody } from '../http/upload-body.js';
import { artifactAt, listArtifactsAt } from '../../history/as-of.js';
import { FILE_TYPES } from '../../files/artifact-rules.js';
import { copyArtifact, renameArtifact, uploadArtifact, uploadArtifactById } from '../../files/artifacts.js';
import { deleteArtifact, restoreArtifact } from '../../files/trash.js';
import { artifactDeleteOut, artifactOut } from '../../shapes/artifacts.js';
import { requestContextOf } from '../http/auth-context.js';
import { ifMatchOf, uploadFieldsOf } from '../http/headers.js';
import { route, RouteRegistry } from '../http/route.js';
import {
  actorHeader,
  artifactPath,
  ifMatchHeader,
  artifactOutSchema,
  deleteOutSchema,
  limitParam,
  pageSchema,
  repeatable,
  sourceSchema,
  cursorParam,
  idOf,
  filenameHeader,
  mergeConflictSchema,
  mergeHeader,
  queryFlag,
} from '../../shapes/artifact-schemas.js';

/**
 * Artifact endpoints of spec 4.1 (downloads and versions live in artifact-content.ts). Id forms are declared before
 * path forms.
 */

/** Lets a `:art_id` route match only an id-shaped segment; anything else falls through to the path form. */
export const onlyArtId: RequestHandler = (req, _res, next) =>
  hasPrefix(String(req.params.art_id), 'art') ? next() : next('route');

export const artIdParams = z.object({ art_id: idOf('art') });
/** The drive as it was right after this event of its feed (docs/decisions/runs.md); 410 HISTORY_PURGED if gone. */
export const asOfParam = z.coerce
  .number()
  .int()
  .min(0)
  .optional()
  .describe(
    'the drive as it was right after this seq of its feed; 404 AS_OF_OUT_OF_RANGE past the newest seq, 410 ' +
      'HISTORY_PURGED when retention no longer keeps it',
  );
export const pathParams = z.object({ path: artifactPath('artifact path') });
const tags = ['artifacts'];

const uploadHeaders = z.object({
  'content-type': z.string().optional(),
  'x-drive-labels': z.string().optional().describe('comma-separated; empty clears'),
  'x-drive-metadata': z.string().optional().describe('JSON object'),
  'x-drive-source': z.string().optional().describe('JSON {"refs": [...]}; replaces when present'),
  'x-drive-visibility': z
    .string()
    .meta({ enum: ['private', 'public'] })
    .optional()
    .describe('private (default) or public (400 BAD_VISIBILITY otherwise)'),
  'x-drive-actor': actorHeader,
  'x-drive-change-summary': z.string().max(1000).optional(),
  'x-drive-filename': filenameHeader,
  'if-match': ifMatchHeader,
  'x-drive-merge': mergeHeader,
});
const putResponses = {
  200: { description: 'artifact record (with merged after a three-way merge)', schema: artifactOutSchema },
  409: { description: 'MERGE_CONFLICT carries the hunks', schema: mergeConflictSchema },
};

export function artifactsRouter(routes: RouteRegistry, ctx: AppContext): Router {
  const router = routes.router();
  const rc = (req: Parameters<typeof requestContextOf>[1]) => requestContextOf(ctx, req);
  const out = (row: Parameters<typeof artifactOut>[1]) => artifactOut(ctx.config, row);

  route(
    router,
    {
      method: 'get',
      path: '/v0/artifacts',
      summary: 'List live artifacts sorted by path',
      tags,
      auth: true,
      query: z.object({
        prefix: z.string().max(256).default(''),
        label: repeatable,
        file_type: z.enum(FILE_TYPES).optional(),
        cursor: cursorParam,
        limit: limitParam(100, 50),
        folder: idOf('fld')
          .optional()
          .describe('list under this folder (yours, or one granted to you); prefix is then relative to it'),
        as_of: asOfParam,
      }),
      responses: { 200: { description: 'artifact page', schema: pageSchema } },
    },
    async ({ query, req }) => {
      const page = await listArtifactsAt(rc(req), {
        asOf: query.as_of,
        prefix: query.prefix,
        labels: query.label,
        fileType: query.file_type,
        cursor: query.cursor,
        limit: query.limit,
        folderId: query.folder,
      });
      return { items: page.items.map(out), next_cursor: page.next_cursor };
    },
  );

  for (const suffix of ['', '/meta']) {
    route(
      router,
      {
        method: 'get',
        path: `/v0/artifacts/:art_id${suffix}`,
        summary: 'Get an artifact record by id',
        tags,
        auth: true,
        params: artIdParams,
        query: z.object({ as_of: asOfParam }),
        responses: { 200: { description: 'artifact record', schema: artifactOutSchema } },
      },
      async ({ params, query, req }) => out(await artifactAt(rc(req), { artId: params.art_id }, query.as_of)),
      onlyArtId,
    );
  }

  route(
    router,
    {
      method: 'patch',
      path: '/v0/artifacts/:art_id',
      summary: 'Rename (move) an artifact; only path and updated_at change',
      tags,
      auth: true,
      params: artIdParams,
      body: z.object({ path: artifactPath('the new path') }),
      headers: z.object({ 'x-drive-actor': actorHeader, 'if-match': ifMatchHeader }),
      responses: { 200: { description: 'artifact record', schema: artifactOutSchema } },
    },
    async ({ params, body, req }) =>
      out(await renameArtifact(rc(req), { artId: params.art_id, path: body.path, ifMatch: ifMatchOf(req) })),
    onlyArtId,
  );

  route(
    router,
    {
      method: 'delete',
      path: '/v0/artifacts/:art_id',
      summary: 'Soft-delete an artifact by id (routed ahead of the path form)',
      tags,
      auth: true,
      params: artIdParams,
      headers: z.object({ 'x-drive-actor': actorHeader, 'if-match': ifMatchHeader }),
      responses: { 200: { description: 'delete result', schema: deleteOutSchema } },
    },
    async ({ params, req }) =>
      artifactDeleteOut(ctx.config, await deleteArtifact(rc(req), { artId: params.art_id, ifMatch: ifMatchOf(req) })),
    onlyArtId,
  );

  route(
    router,
    {
      method: 'post',
      path: '/v0/artifacts/:art_id/copy',
      summary: 'Copy an artifact to a new path (new id, version 1)',
      tags,
      auth: true,
      params: artIdParams,
      body: z.object({ path: artifactPath('path of the copy'), source: sourceSchema.nullable().optional() }),
      headers: z.object({ 'x-drive-actor': actorHeader }),
      responses: { 200: { description: 'the new artifact', schema: artifactOutSchema } },
    },
    async ({ params, body, req }) =>
      out(await copyArtifact(rc(req), { artId: params.art_id, path: body.path, source: body.source ?? null })),
    onlyArtId,
  );

  route(
    router,
    {
      method: 'post',
      path: '/v0/artifacts/:art_id/restore',
      summary: 'Restore an artifact from the trash',
      tags,
      auth: true,
      params: artIdParams,
      query: z
        .object({
          rename: z.string().min(1).optional(),
          overwrite: queryFlag(),
        })
        .refine((q) => !(q.rename !== undefined && q.overwrite), {
          message: 'rename and overwrite are mutually exclusive',
        }),
      headers: z.object({ 'x-drive-actor': actorHeader }),
      responses: { 200: { description: 'restored artifact', schema: artifactOutSchema } },
    },
    async ({ params, query, req }) =>
      out(await restoreArtifact(rc(req), { artId: params.art_id, rename: query.rename, overwrite: query.overwrite })),
    onlyArtId,
  );

  route(
    router,
    {
      method: 'put',
      path: '/v0/artifacts/:art_id',
      summary: 'Upload a new version of an artifact by id (yours, or one a grant lets you write)',
      tags,
      auth: true,
      params: artIdParams,
      bodyContentType: 'application/octet-stream',
      headers: uploadHeaders,
      responses: putResponses,
    },
    async ({ params, req, res }) => {
      const upload = uploadFieldsOf(req);
      return streamUpload(req, res, () => uploadArtifactById(rc(req), params.art_id, upload, incomingOf(req)));
    },
    onlyArtId,
  );

  route(
    router,
    {
      method: 'get',
      path: '/v0/artifacts/*path/meta',
      summary: 'Get an artifact record by path',
      tags,
      auth: true,
      params: pathParams,
      query: z.object({ as_of: asOfParam }),
      responses: { 200: { description: 'artifact record', schema: artifactOutSchema } },
    },
    async ({ params, query, req }) => out(await artifactAt(rc(req), { path: params.path }, query.as_of)),
  );

  route(
    router,
    {
      method: 'put',
      path: '/v0/artifacts/*path',
      summary: 'Upload: create at a new path or overwrite (new version)',
      tags,
      auth: true,
      params: pathParams,
      bodyContentType: 'application/octet-stream',
      headers: uploadHeaders,
      responses: putResponses,
    },
    async ({ params, req, res }) =>
      streamUpload(req, res, () =>
        uploadArtifact(rc(req), { ...uploadFieldsOf(req), path: params.path }, incomingOf(req)),
      ),
  );

  route(
    router,
    {
      method: 'delete',
      path: '/v0/artifacts/*path',
      summary: 'Soft-delete an artifact by path',
      tags,
      auth: true,
      params: pathParams,
      headers: z.object({ 'x-drive-actor': actorHeader, 'if-match': ifMatchHeader }),
      responses: { 200: { description: 'delete result', schema: deleteOutSchema } },
    },
    async ({ params, req }) =>
      artifactDeleteOut(ctx.config, await deleteArtifact(rc(req), { path: params.path, ifMatch: ifMatchOf(req) })),
  );

  return router;

  async function streamUpload(req: Request, res: Response, upload: () => Promise<Parameters<typeof artifactOut>[1]>) {
    return out(await whileReadingBody(req, res, upload));
  }
}

function incomingOf(req: Request) {
  const declared = req.get('content-length');
  return { stream: req, declaredBytes: declared ? Number(declared) : undefined };
}
