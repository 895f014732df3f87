import { Router } from 'express';
import { z } from 'zod';
import { authOf } from '../http/auth-context.js';
import type { AppContext } from '../../context.js';
import { artifactNotFound, getLiveArtifact, getLiveArtifactByPath } from '../../drive/artifact-records.js';
import { checkPath } from '../../drive/artifact-rules.js';
import { getVersion, listVersions, versionOut } from '../../drive/versions.js';
import { presignBlob, storageFailure } from '../../storage/blob-store.js';
import { route } from '../http/route.js';
import { sendBytes } from '../http/send-bytes.js';
import { downloadUrlOutSchema, limitParam, versionOutSchema, versionPageSchema } from '../schemas/artifacts.js';
import { artIdParams, onlyArtId, pathParams } from './artifacts.js';

/** Bytes and versions: downloads (never rendered), download URLs, version list/get/download. */
const tags = ['artifacts'];
const versionParams = artIdParams.extend({ version_number: z.coerce.number().int().min(1).max(2 ** 31 - 1) });
const bytesResponse = { 200: { description: 'raw bytes (attachment)', contentType: '*/*' }, 206: { description: 'partial content' }, 304: { description: 'not modified' } };

export function artifactContentRouter(ctx: AppContext): Router {
  const router = Router();

  /** Direct signed S3 URL above the threshold; the proxy download URL at or below it. */
  async function downloadUrl(blob: { hash: string; size: number; contentType: string; path: string }, proxyUrl: string) {
    const filename = blob.path.slice(blob.path.lastIndexOf('/') + 1);
    const base = { size_bytes: blob.size, content_type: blob.contentType, filename };
    if (blob.size <= ctx.config.limits.signedDownloadThresholdBytes) return { url: proxyUrl, direct: false, expires_at: null, ...base };
    const expiresInS = ctx.config.durations.downloadUrlS;
    let url: string;
    try {
      url = await presignBlob(ctx.s3, ctx.config.s3.bucket, blob.hash, { expiresInS, contentType: blob.contentType, filename });
    } catch (err) {
      throw storageFailure(err);
    }
    return { url, direct: true, expires_at: new Date(Date.now() + expiresInS * 1000).toISOString(), ...base };
  }
  const byIdUrl = (artId: string) => `${ctx.config.http.baseUrl}/v0/artifacts/${artId}/download`;

  route(router, {
    method: 'get', path: '/v0/artifacts/:art_id/download', summary: 'Download the current bytes (supports Range, ETag)', tags, auth: true,
    params: artIdParams, responses: bytesResponse,
  }, async ({ params, req, res }) => {
    const a = await getLiveArtifact(ctx.orm.em.fork(), authOf(req).driveId, params.art_id);
    await sendBytes(ctx, req, res, { hash: a.hash, size: Number(a.size_bytes), contentType: a.content_type, path: a.path });
  }, onlyArtId);

  route(router, {
    method: 'get', path: '/v0/artifacts/:art_id/download-url', summary: 'A download URL for the current bytes', tags, auth: true,
    params: artIdParams, responses: { 200: { description: 'download URL record', schema: downloadUrlOutSchema } },
  }, async ({ params, req }) => {
    const a = await getLiveArtifact(ctx.orm.em.fork(), authOf(req).driveId, params.art_id);
    return downloadUrl({ hash: a.hash, size: Number(a.size_bytes), contentType: a.content_type, path: a.path }, byIdUrl(a.id));
  }, onlyArtId);

  route(router, {
    method: 'get', path: '/v0/artifacts/:art_id/versions', summary: 'List versions, newest first', tags, auth: true,
    params: artIdParams, query: z.object({ cursor: z.string().max(2048).optional(), limit: limitParam(100, 50) }),
    responses: { 200: { description: 'version page', schema: versionPageSchema } },
  }, ({ params, query, req }) => listVersions(ctx, authOf(req).driveId, params.art_id, query), onlyArtId);

  route(router, {
    method: 'get', path: '/v0/artifacts/:art_id/versions/:version_number', summary: 'Get one version record', tags, auth: true,
    params: versionParams, responses: { 200: { description: 'version record', schema: versionOutSchema } },
  }, async ({ params, req }) => versionOut(await getVersion(ctx.orm.em.fork(), authOf(req).driveId, params.art_id, params.version_number)), onlyArtId);

  route(router, {
    method: 'get', path: '/v0/artifacts/:art_id/versions/:version_number/download', summary: 'Download the bytes of one version', tags, auth: true,
    params: versionParams, responses: bytesResponse,
  }, async ({ params, req, res }) => {
    const db = ctx.orm.em.fork();
    const a = await getLiveArtifact(db, authOf(req).driveId, params.art_id);
    const v = await getVersion(db, a.drive_id, a.id, params.version_number);
    await sendBytes(ctx, req, res, { hash: v.hash, size: Number(v.size_bytes), contentType: v.content_type, path: a.path });
  }, onlyArtId);

  route(router, {
    method: 'get', path: '/v0/artifacts/:art_id/versions/:version_number/download-url', summary: 'A download URL for one version', tags, auth: true,
    params: versionParams, responses: { 200: { description: 'download URL record', schema: downloadUrlOutSchema } },
  }, async ({ params, req }) => {
    const db = ctx.orm.em.fork();
    const a = await getLiveArtifact(db, authOf(req).driveId, params.art_id);
    const v = await getVersion(db, a.drive_id, a.id, params.version_number);
    return downloadUrl(
      { hash: v.hash, size: Number(v.size_bytes), contentType: v.content_type, path: a.path },
      `${byIdUrl(a.id).replace(/\/download$/, '')}/versions/${v.version_number}/download`,
    );
  }, onlyArtId);

  route(router, {
    method: 'get', path: '/v0/artifacts/*path/download-url', summary: 'A download URL by path (the proxy form points at the by-id download)', tags, auth: true,
    params: pathParams, responses: { 200: { description: 'download URL record', schema: downloadUrlOutSchema } },
  }, async ({ params, req }) => {
    const a = await getLiveArtifactByPath(ctx.orm.em.fork(), authOf(req).driveId, checkPath(params.path));
    if (!a) throw artifactNotFound();
    return downloadUrl({ hash: a.hash, size: Number(a.size_bytes), contentType: a.content_type, path: a.path }, byIdUrl(a.id));
  });

  return router;
}
