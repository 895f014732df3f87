import { Router, type Request, type RequestHandler } from 'express';
import { z } from 'zod';
import { authOf } from '../http/auth-context.js';
import type { AppContext } from '../../context.js';
import { hasPrefix } from '../../ids.js';
import { listArtifacts } from '../../drive/artifact-listing.js';
import { artifactOut, getLiveArtifact, getLiveArtifactByPath, artifactNotFound } from '../../drive/artifact-records.js';
import { checkPath, FILE_TYPES, parseActor, parseIfMatch, parseLabels, parseMetadata, parseSource, parseVisibility } from '../../drive/artifact-rules.js';
import { copyArtifact, preflightPut, putArtifact, renameArtifact, type PutInput } from '../../drive/artifacts.js';
import { deleteArtifact, restoreArtifact } from '../../drive/trash.js';
import { spoolBody } from '../../storage/spool.js';
import { AppError } from '../../errors.js';
import { route } from '../http/route.js';
import { actorHeader, artifactOutSchema, deleteOutSchema, limitParam, pageSchema, repeatable, sourceSchema } from '../schemas/artifacts.js';

/** Artifact endpoints of spec 4.1 (downloads and versions live in artifact-content.ts). Id forms are declared before path forms. */

/** Lets a `:art_id` route match only an id-shaped segment; anything else falls through to the path form. */
export const onlyArtId: RequestHandler = (req, _res, next) => (hasPrefix(String(req.params.art_id), 'art') ? next() : next('route'));

export const artIdParams = z.object({ art_id: z.string().regex(/^art_[0-9a-z]{26}$/) });
export const pathParams = z.object({ path: z.string().min(1) });
export const actorOf = (req: Request) => parseActor(req.get('x-drive-actor'));
const tags = ['artifacts'];

const uploadHeaders = z.object({
  'content-type': z.string().optional(),
  'x-drive-labels': z.string().optional().describe('comma-separated; empty clears'),
  'x-drive-metadata': z.string().optional().describe('JSON object'),
  'x-drive-source': z.string().optional().describe('JSON {"refs": [...]}; replaces when present'),
  'x-drive-visibility': z.string().optional().describe('private (default) or public'),
  'x-drive-actor': actorHeader,
  'x-drive-change-summary': z.string().max(1000).optional(),
  'if-match': z.string().optional().describe('expected current version number'),
});

function uploadInput(req: Request, driveId: string, path: string): PutInput {
  const h = (name: string) => req.get(name);
  const summary = h('x-drive-change-summary');
  if (summary !== undefined && summary.length > 1000) throw new AppError('INVALID_CHANGE_SUMMARY', 'X-Drive-Change-Summary is at most 1000 characters');
  return {
    driveId,
    path: checkPath(path),
    contentType: h('content-type') || undefined,
    labels: h('x-drive-labels') !== undefined ? parseLabels(h('x-drive-labels')!) : undefined,
    metadata: h('x-drive-metadata') !== undefined ? parseMetadata(h('x-drive-metadata')!) : undefined,
    source: h('x-drive-source') !== undefined ? parseSource(h('x-drive-source')!) : undefined,
    visibility: h('x-drive-visibility') !== undefined ? parseVisibility(h('x-drive-visibility')!) : undefined,
    actor: parseActor(h('x-drive-actor')),
    changeSummary: summary || null,
    ifMatch: parseIfMatch(h('if-match')),
  };
}

export function artifactsRouter(ctx: AppContext): Router {
  const router = Router();
  const { maxUploadBytes } = ctx.config.limits;
  const tooLarge = () => new AppError('ARTIFACT_TOO_LARGE', `upload body is over the ${maxUploadBytes}-byte limit`, { limit_bytes: maxUploadBytes });

  route(router, {
    method: 'get', path: '/v0/artifacts', summary: 'List live artifacts sorted by path', tags, auth: true,
    query: z.object({
      prefix: z.string().max(256).default(''),
      label: repeatable,
      file_type: z.enum(FILE_TYPES).optional(),
      cursor: z.string().max(2048).optional(),
      limit: limitParam(100, 50),
    }),
    responses: { 200: { description: 'artifact page', schema: pageSchema } },
  }, ({ query, req }) =>
    listArtifacts(ctx, authOf(req).driveId, { prefix: query.prefix, labels: query.label, fileType: query.file_type, cursor: query.cursor, limit: query.limit }));

  for (const suffix of ['', '/meta']) {
    route(router, {
      method: 'get', path: `/v0/artifacts/:art_id${suffix}`, summary: 'Get an artifact record by id', tags, auth: true,
      params: artIdParams, responses: { 200: { description: 'artifact record', schema: artifactOutSchema } },
    }, async ({ params, req }) => artifactOut(ctx.config, await getLiveArtifact(ctx.orm.em.fork(), authOf(req).driveId, params.art_id)), onlyArtId);
  }

  route(router, {
    method: 'patch', path: '/v0/artifacts/:art_id', summary: 'Rename (move) an artifact; only path and updated_at change', tags, auth: true,
    params: artIdParams, body: z.object({ path: z.string().min(1) }),
    headers: z.object({ 'x-drive-actor': actorHeader, 'if-match': z.string().optional() }),
    responses: { 200: { description: 'artifact record', schema: artifactOutSchema } },
  }, async ({ params, body, req }) =>
    renameArtifact(ctx, { driveId: authOf(req).driveId, artId: params.art_id, path: body.path, actor: actorOf(req), ifMatch: parseIfMatch(req.get('if-match')) }), onlyArtId);

  route(router, {
    method: 'delete', path: '/v0/artifacts/:art_id', summary: 'Soft-delete an artifact by id (routed ahead of the path form)', tags, auth: true,
    params: artIdParams, headers: z.object({ 'x-drive-actor': actorHeader, 'if-match': z.string().optional() }),
    responses: { 200: { description: 'delete result', schema: deleteOutSchema } },
  }, async ({ params, req }) =>
    deleteArtifact(ctx, { driveId: authOf(req).driveId, artId: params.art_id, ifMatch: parseIfMatch(req.get('if-match')), actor: actorOf(req) }), onlyArtId);

  route(router, {
    method: 'post', path: '/v0/artifacts/:art_id/copy', summary: 'Copy an artifact to a new path (new id, version 1)', tags, auth: true,
    params: artIdParams, body: z.object({ path: z.string().min(1), source: sourceSchema.nullable().optional() }),
    headers: z.object({ 'x-drive-actor': actorHeader }),
    responses: { 200: { description: 'the new artifact', schema: artifactOutSchema } },
  }, async ({ params, body, req }) =>
    copyArtifact(ctx, { driveId: authOf(req).driveId, artId: params.art_id, path: body.path, source: body.source ?? null, actor: actorOf(req) }), onlyArtId);

  route(router, {
    method: 'post', path: '/v0/artifacts/:art_id/restore', summary: 'Restore an artifact from the trash', tags, auth: true,
    params: artIdParams,
    query: z
      .object({ rename: z.string().min(1).optional(), overwrite: z.enum(['true', 'false']).default('false').transform((v) => v === 'true') })
      .refine((q) => !(q.rename !== undefined && q.overwrite), { message: 'rename and overwrite are mutually exclusive' }),
    headers: z.object({ 'x-drive-actor': actorHeader }),
    responses: { 200: { description: 'restored artifact', schema: artifactOutSchema } },
  }, async ({ params, query, req }) =>
    restoreArtifact(ctx, { driveId: authOf(req).driveId, artId: params.art_id, rename: query.rename, overwrite: query.overwrite, actor: actorOf(req) }), onlyArtId);

  route(router, {
    method: 'get', path: '/v0/artifacts/*path/meta', summary: 'Get an artifact record by path', tags, auth: true,
    params: pathParams, responses: { 200: { description: 'artifact record', schema: artifactOutSchema } },
  }, async ({ params, req }) => {
    const row = await getLiveArtifactByPath(ctx.orm.em.fork(), authOf(req).driveId, checkPath(params.path));
    if (!row) throw artifactNotFound();
    return artifactOut(ctx.config, row);
  });

  route(router, {
    method: 'put', path: '/v0/artifacts/*path', summary: 'Upload: create at a new path or overwrite (new version)', tags, auth: true,
    params: pathParams, bodyContentType: 'application/octet-stream', headers: uploadHeaders,
    responses: { 200: { description: 'artifact record', schema: artifactOutSchema } },
  }, async ({ params, req, res }) => {
    try {
      const input = uploadInput(req, authOf(req).driveId, params.path);
      await preflightPut(ctx, input);
      const declared = Number(req.get('content-length') ?? NaN);
      if (declared > maxUploadBytes) throw tooLarge();
      const spooled = await spoolBody(req, { maxBytes: maxUploadBytes, memoryBytes: ctx.config.limits.uploadSpoolMemoryBytes });
      if (spooled.tooLarge) throw tooLarge();
      try {
        return await putArtifact(ctx, input, spooled);
      } finally {
        await spooled.dispose();
      }
    } catch (err) {
      // The body was not (fully) read: close the connection after answering instead of reading the rest.
      if (!req.complete) {
        res.setHeader('Connection', 'close');
        req.resume();
      }
      throw err;
    }
  });

  route(router, {
    method: 'delete', path: '/v0/artifacts/*path', summary: 'Soft-delete an artifact by path', tags, auth: true,
    params: pathParams, headers: z.object({ 'x-drive-actor': actorHeader, 'if-match': z.string().optional() }),
    responses: { 200: { description: 'delete result', schema: deleteOutSchema } },
  }, async ({ params, req }) =>
    deleteArtifact(ctx, { driveId: authOf(req).driveId, path: params.path, ifMatch: parseIfMatch(req.get('if-match')), actor: actorOf(req) }));

  return router;
}
