import type { Router } from 'express';
import { z } from 'zod';
import { requestContextOf } from '../http/auth-context.js';
import { artifactOut } from '../../shapes/artifacts.js';
import type { AppContext } from '../../platform/context.js';
import { beginUpload, commitUpload } from '../../uploads/uploads.js';
import { route, RouteRegistry } from '../http/route.js';
import { actorHeader, artifactOutSchema, filenameHeader } from '../../shapes/artifact-schemas.js';
import { filenameOf } from '../http/headers.js';
import { uploadBeginInSchema, uploadBeginOutSchema } from '../../shapes/upload-schemas.js';
import { uploadBeginOut } from '../../shapes/uploads.js';

/** Large uploads (spec 4.7): begin hands out a presigned PUT; commit turns the uploaded object into the artifact. */
const tags = ['uploads'];

export function uploadsRouter(routes: RouteRegistry, ctx: AppContext): Router {
  const router = routes.router();

  route(
    router,
    {
      method: 'post',
      path: '/v0/uploads',
      summary: 'Begin a large upload: reserve quota, get a presigned upload_url',
      tags,
      auth: true,
      body: uploadBeginInSchema,
      headers: z.object({ 'x-drive-actor': actorHeader, 'x-drive-filename': filenameHeader }),
      responses: { 200: { description: 'UploadBeginOut', schema: uploadBeginOutSchema } },
    },
    async ({ body, req }) =>
      uploadBeginOut(
        await beginUpload(requestContextOf(ctx, req), {
          path: body.path,
          sizeBytes: body.size_bytes,
          contentType: body.content_type,
          crc32c: body.crc32c,
          labels: body.labels,
          metadata: body.metadata,
          source: body.source,
          actorName: body.actor_name,
          changeSummary: body.change_summary,
          ifMatch: body.if_match,
          filename: filenameOf(req.get('x-drive-filename')),
        }),
      ),
  );

  route(
    router,
    {
      method: 'post',
      path: '/v0/uploads/:upload_id/commit',
      summary: 'Commit a large upload (idempotent): creates the artifact or its new version',
      tags,
      auth: true,
      params: z.object({ upload_id: z.string() }),
      responses: { 200: { description: 'artifact record', schema: artifactOutSchema } },
    },
    async ({ params, req }) =>
      artifactOut(ctx.config, await commitUpload(requestContextOf(ctx, req), params.upload_id)),
  );

  return router;
}
