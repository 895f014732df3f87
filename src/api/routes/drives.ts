import { Router, type RequestHandler } from 'express';
import { z } from 'zod';
import { authOf } from '../http/auth-context.js';
import type { AppContext } from '../../context.js';
import { checkOwnDrive, deleteDrive, driveTrash, restoreDrive } from '../../drive/drive-deletion.js';
import { route } from '../http/route.js';
import { actorHeader, artifactOutSchema, folderOutSchema, limitParam } from '../schemas/artifacts.js';
import { actorOf } from './artifacts.js';

/**
 * Drive delete, restore and trash (spec 4.4). Mounted ahead of the /v0 bearer middleware with an
 * `auth` that accepts a soft-deleted drive's credentials, since restore and trash must still work then.
 */
const params = z.object({ drive_id: z.string().min(1).max(64) });
const tags = ['drives'];
const driveStateSchema = z.object({ drive_id: z.string(), deleted_at: z.string().nullable(), purge_at: z.string().nullable() });

export function drivesRouter(ctx: AppContext, ...auth: RequestHandler[]): Router {
  const router = Router();

  route(router, {
    method: 'delete', path: '/v0/drives/:drive_id', summary: 'Soft-delete the authenticated drive (all data hidden until restore or purge)', tags, auth: true,
    params, headers: z.object({ 'x-drive-actor': actorHeader }),
    responses: { 200: { description: 'drive delete result', schema: driveStateSchema.extend({ ok: z.literal(true), retention_days: z.number(), restore_url: z.string() }) } },
  }, async ({ params: p, req }) => {
    checkOwnDrive(authOf(req).driveId, p.drive_id);
    return deleteDrive(ctx, { driveId: p.drive_id, actor: actorOf(req) });
  }, ...auth);

  route(router, {
    method: 'post', path: '/v0/drives/:drive_id/restore', summary: 'Restore a soft-deleted drive', tags, auth: true,
    params, headers: z.object({ 'x-drive-actor': actorHeader }),
    responses: { 200: { description: 'drive restore result', schema: driveStateSchema.extend({ ok: z.literal(true) }) } },
  }, async ({ params: p, req }) => {
    checkOwnDrive(authOf(req).driveId, p.drive_id);
    return restoreDrive(ctx, { driveId: p.drive_id, actor: actorOf(req) });
  }, ...auth);

  route(router, {
    method: 'get', path: '/v0/drives/:drive_id/trash', summary: "Soft-deleted artifacts and folders, plus the drive's own soft-delete state", tags, auth: true,
    params, query: z.object({ cursor: z.string().max(2048).optional(), limit: limitParam(100, 50) }),
    responses: {
      200: {
        description: 'trash',
        schema: z.object({ drive: driveStateSchema.nullable(), items: z.array(artifactOutSchema), folders: z.array(folderOutSchema), next_cursor: z.string().nullable() }),
      },
    },
  }, async ({ params: p, query, req }) => {
    checkOwnDrive(authOf(req).driveId, p.drive_id);
    return driveTrash(ctx, ctx.orm.em.fork(), p.drive_id, query);
  }, ...auth);

  return router;
}
