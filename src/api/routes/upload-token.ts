import type { Router } from 'express';
import { z } from 'zod';
import type { AppContext } from '../../platform/context.js';
import { artifactOut } from '../../shapes/artifacts.js';
import { uploadWithToken } from '../../uploads/upload-tokens.js';
import { route, RouteRegistry } from '../http/route.js';
import { whileReadingBody } from '../http/upload-body.js';
import { artifactOutSchema } from '../../shapes/artifact-schemas.js';

/**
 * PUT /v0/upload/{token} (spec 4.7): the single-use token minted by the MCP `upload_url` tool is
 * the credential, so this route sits ahead of the /v0 bearer check and needs no Authorization header.
 */
export function uploadTokenRouter(routes: RouteRegistry, ctx: AppContext): Router {
  const router = routes.router();
  route(
    router,
    {
      method: 'put',
      path: '/v0/upload/:token',
      summary:
        'Token upload: raw bytes to the single-use URL minted by the MCP upload_url tool (no Authorization header)',
      tags: ['uploads'],
      params: z.object({ token: z.string().min(1).max(200) }),
      bodyContentType: 'application/octet-stream',
      headers: z.object({ 'content-type': z.string().describe('must equal the content type frozen in the token') }),
      responses: {
        200: { description: 'artifact record', schema: artifactOutSchema },
        400: {
          description: 'Content-Type differs from the token (CONTENT_TYPE_MISMATCH) or another validation failure',
        },
        401: { description: 'token invalid (TOKEN_INVALID), expired (TOKEN_EXPIRED) or its drive deleted' },
        403: { description: 'reserved path (WIKI_RESERVED)' },
        409: { description: 'token already used (TOKEN_REPLAYED)' },
        412: { description: 'If-Match frozen in the token failed (PRECONDITION_FAILED)' },
        413: { description: 'body over the signed cap (BYTES_LIMIT) or the drive quota (STORAGE_QUOTA_EXCEEDED)' },
        429: { description: 'write budget exhausted (RATE_LIMITED)' },
        503: { description: 'storage unavailable (STORAGE_FAILURE)' },
      },
    },
    async ({ params, req, res }) => {
      const declared = req.get('content-length');
      const row = await whileReadingBody(req, res, () =>
        uploadWithToken(ctx, params.token, {
          contentType: req.get('content-type'),
          stream: req,
          declaredBytes: declared ? Number(declared) : undefined,
          requestId: String(req.id ?? ''),
        }),
      );
      return artifactOut(ctx.config, row);
    },
  );
  return router;
}
