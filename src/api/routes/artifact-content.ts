import { openContentAt } from '../../history/as-of.js';
import { type Router, type Request } from 'express';
import { z } from 'zod';
import type { AppContext } from '../../platform/context.js';
import { downloadUrl, openContent, type ContentTarget } from '../../files/content.js';
import { listVersions, readVersion } from '../../files/versions.js';
import { restoreVersion } from '../../files/version-restore.js';
import { artifactOut, downloadUrlOut } from '../../shapes/artifacts.js';
import { versionOut } from '../../shapes/versions.js';
import { readDocumentUnit } from '../../files/document-text.js';
import { documentTextOut, documentTextQuery, documentTextSchema } from '../../shapes/documents.js';
import { requestContextOf } from '../http/auth-context.js';
import { route, RouteRegistry } from '../http/route.js';
import { ifMatchOf } from '../http/headers.js';
import { sendBytes } from '../http/send-bytes.js';
import {
  actorHeader,
  artifactOutSchema,
  ifMatchHeader,
  downloadUrlOutSchema,
  limitParam,
  versionOutSchema,
  versionPageSchema,
  cursorParam,
} from '../../shapes/artifact-schemas.js';
import { artIdParams, asOfParam, onlyArtId, pathParams } from './artifacts.js';

/** Bytes and versions: downloads (never rendered), download URLs, version list/get/download. */
const tags = ['artifacts'];
const versionParams = artIdParams.extend({
  version_number: z.coerce
    .number()
    .int()
    .min(1)
    .max(2 ** 31 - 1),
});
const bytesResponse = {
  200: { description: 'raw bytes (attachment)', contentType: '*/*' },
  206: { description: 'partial content' },
  304: { description: 'not modified' },
};
const downloadUrlResponse = { 200: { description: 'download URL record', schema: downloadUrlOutSchema } };

export function artifactContentRouter(routes: RouteRegistry, ctx: AppContext): Router {
  const router = routes.router();
  const rc = (req: Request) => requestContextOf(ctx, req);
  const download = async (req: Request, res: Parameters<typeof sendBytes>[1], target: ContentTarget) =>
    sendBytes(req, res, await openContent(rc(req), target));
  const downloadAt = async (req: Request, res: Parameters<typeof sendBytes>[1], artId: string, asOf?: number) =>
    sendBytes(req, res, await openContentAt(rc(req), artId, asOf));
  const urlOf = async (req: Request, target: ContentTarget) => downloadUrlOut(await downloadUrl(rc(req), target));

  route(
    router,
    {
      method: 'get',
      path: '/v0/artifacts/:art_id/download',
      summary: 'Download the current bytes, or those it had as_of a seq (supports Range, ETag)',
      tags,
      auth: true,
      params: artIdParams,
      query: z.object({ as_of: asOfParam }),
      responses: bytesResponse,
    },
    ({ params, query, req, res }) => downloadAt(req, res, params.art_id, query.as_of),
    onlyArtId,
  );

  route(
    router,
    {
      method: 'get',
      path: '/v0/artifacts/:art_id/text',
      summary:
        "A document's extracted text (Markdown), one unit: page= (PDF), slide=, sheet= (name) or unit= (1-based); " +
        'the first by default (a text file is one unit). The unit a find hit names in its anchor. Lines of it by ' +
        'line_start/line_count, numbered= the memory tool’s way.',
      tags,
      auth: true,
      params: artIdParams,
      query: documentTextQuery,
      responses: { 200: { description: 'one unit of the text', schema: documentTextSchema } },
    },
    async ({ params, query: { line_start, line_count, ...q }, req }) =>
      documentTextOut(
        await readDocumentUnit(rc(req), params.art_id, { ...q, lineStart: line_start, lineCount: line_count }),
      ),
    onlyArtId,
  );

  route(
    router,
    {
      method: 'get',
      path: '/v0/artifacts/:art_id/download-url',
      summary: 'A download URL for the current bytes',
      tags,
      auth: true,
      params: artIdParams,
      responses: downloadUrlResponse,
    },
    ({ params, req }) => urlOf(req, { artId: params.art_id }),
    onlyArtId,
  );

  route(
    router,
    {
      method: 'get',
      path: '/v0/artifacts/:art_id/versions',
      summary: 'List versions, newest first',
      tags,
      auth: true,
      params: artIdParams,
      query: z.object({ cursor: cursorParam, limit: limitParam(100, 50) }),
      responses: { 200: { description: 'version page', schema: versionPageSchema } },
    },
    async ({ params, query, req }) => {
      const page = await listVersions(rc(req), params.art_id, query);
      return { ...page, items: page.items.map(versionOut) };
    },
    onlyArtId,
  );

  route(
    router,
    {
      method: 'get',
      path: '/v0/artifacts/:art_id/versions/:version_number',
      summary: 'Get one version record',
      tags,
      auth: true,
      params: versionParams,
      responses: { 200: { description: 'version record', schema: versionOutSchema } },
    },
    async ({ params, req }) => versionOut(await readVersion(rc(req), params.art_id, params.version_number)),
    onlyArtId,
  );

  route(
    router,
    {
      method: 'post',
      path: '/v0/artifacts/:art_id/versions/:version_number/restore',
      summary: "Make a new current version with this version's bytes, labels and metadata",
      tags,
      auth: true,
      params: versionParams,
      headers: z.object({ 'x-drive-actor': actorHeader, 'if-match': ifMatchHeader }),
      responses: { 200: { description: 'the artifact at its new version', schema: artifactOutSchema } },
    },
    async ({ params, req }) =>
      artifactOut(
        ctx.config,
        await restoreVersion(rc(req), {
          artId: params.art_id,
          versionNumber: params.version_number,
          ifMatch: ifMatchOf(req),
        }),
      ),
    onlyArtId,
  );

  route(
    router,
    {
      method: 'get',
      path: '/v0/artifacts/:art_id/versions/:version_number/download',
      summary: 'Download the bytes of one version',
      tags,
      auth: true,
      params: versionParams,
      responses: bytesResponse,
    },
    ({ params, req, res }) => download(req, res, { artId: params.art_id, versionNumber: params.version_number }),
    onlyArtId,
  );

  route(
    router,
    {
      method: 'get',
      path: '/v0/artifacts/:art_id/versions/:version_number/download-url',
      summary: 'A download URL for one version',
      tags,
      auth: true,
      params: versionParams,
      responses: downloadUrlResponse,
    },
    ({ params, req }) => urlOf(req, { artId: params.art_id, versionNumber: params.version_number }),
    onlyArtId,
  );

  route(
    router,
    {
      method: 'get',
      path: '/v0/artifacts/*path/download-url',
      summary: 'A download URL by path (the proxy form points at the by-id download)',
      tags,
      auth: true,
      params: pathParams,
      responses: downloadUrlResponse,
    },
    ({ params, req }) => urlOf(req, { path: params.path }),
  );

  return router;
}
