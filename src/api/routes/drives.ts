import { Router, type RequestHandler } from 'express';
import { z } from 'zod';
import { requestContextOf } from '../http/auth-context.js';
import type { AppContext } from '../../platform/context.js';
import { deleteDrive, restoreDrive } from '../../drives/drive-deletion.js';
import { driveTrash } from '../../files/trash-listing.js';
import { artifactOut } from '../../shapes/artifacts.js';
import { driveDeleteOut, driveRestoreOut, driveStateOut } from '../../shapes/drives.js';
import { folderOut } from '../../shapes/folders.js';
import { route } from '../http/route.js';
import {
  actorHeader,
  artifactOutSchema,
  folderOutSchema,
  limitParam,
  cursorParam,
} from '../../shapes/artifact-schemas.js';

/**
 * Drive delete, restore and trash (spec 4.4). Mounted ahead of the /v0 bearer middleware with an
 * `auth` that accepts a soft-deleted drive's credentials, since restore and trash must still work then.
 */
const params = z.object({ drive_id: z.string().min(1).max(64) });
const tags = ['drives'];
const driveStateSchema = z.object({
  drive_id: z.string(),
  deleted_at: z.string().nullable(),
  purge_at: z.string().nullable(),
});

export function drivesRouter(ctx: AppContext, ...auth: RequestHandler[]): Router {
  const router = Router();

  route(
    router,
    {
      method: 'delete',
      path: '/v0/drives/:drive_id',
      summary: 'Soft-delete the authenticated drive (all data hidden until restore or purge)',
      tags,
      auth: true,
      params,
      headers: z.object({ 'x-drive-actor': actorHeader }),
      responses: {
        200: {
          description: 'drive delete result',
          schema: driveStateSchema.extend({ ok: z.literal(true), retention_days: z.number(), restore_url: z.string() }),
        },
      },
    },
    async ({ params: p, req }) => driveDeleteOut(ctx.config, await deleteDrive(requestContextOf(ctx, req), p.drive_id)),
    ...auth,
  );

  route(
    router,
    {
      method: 'post',
      path: '/v0/drives/:drive_id/restore',
      summary: 'Restore a soft-deleted drive',
      tags,
      auth: true,
      params,
      headers: z.object({ 'x-drive-actor': actorHeader }),
      responses: {
        200: { description: 'drive restore result', schema: driveStateSchema.extend({ ok: z.literal(true) }) },
      },
    },
    async ({ params: p, req }) => driveRestoreOut(await restoreDrive(requestContextOf(ctx, req), p.drive_id)),
    ...auth,
  );

  route(
    router,
    {
      method: 'get',
      path: '/v0/drives/:drive_id/trash',
      summary: "Soft-deleted artifacts and folders, plus the drive's own soft-delete state",
      tags,
      auth: true,
      params,
      query: z.object({ cursor: cursorParam, limit: limitParam(100, 50) }),
      responses: {
        200: {
          description: 'trash',
          schema: z.object({
            drive: driveStateSchema.nullable(),
            items: z.array(artifactOutSchema),
            folders: z.array(folderOutSchema),
            next_cursor: z.string().nullable(),
          }),
        },
      },
    },
    async ({ params: p, query, req }) => {
      const trash = await driveTrash(requestContextOf(ctx, req), p.drive_id, query);
      return {
        drive: trash.drive && driveStateOut(trash.drive),
        next_cursor: trash.next_cursor,
        items: trash.items.map((r) => artifactOut(ctx.config, r)),
        folders: trash.folders.map(folderOut),
      };
    },
    ...auth,
  );

  return router;
}
