import type { Router } from 'express';
import { z } from 'zod';
import { requestContextOf } from '../http/auth-context.js';
import type { AppContext } from '../../platform/context.js';
import { route, type RouteRegistry } from '../http/route.js';
import { cursorParam, idOf, limitParam } from '../../shapes/artifact-schemas.js';
import { getRun, listRuns, revertRun } from '../../history/runs.js';
import { createSnapshot, deleteSnapshot, listSnapshots, rewindDrive } from '../../history/snapshots.js';
import {
  revertOutSchema,
  rewindOutSchema,
  runDetailOut,
  runDetailSchema,
  runOut,
  runPageSchema,
  snapshotOut,
  snapshotOutSchema,
  undoOut,
} from '../../shapes/runs.js';

const runIdParams = z.object({ run_id: z.string().regex(/^[A-Za-z0-9_.:-]{1,64}$/) });
const undoBody = z.object({
  dry_run: z.boolean().default(false).describe('answer what would happen and change nothing'),
  force: z.boolean().default(false).describe('skip conflicts (reported as conflict) and undo the rest'),
});

/** Runs, revert, snapshots and rewind (issue 38; docs/decisions/runs.md). */
export function runsRouter(routes: RouteRegistry, ctx: AppContext): Router {
  const router = routes.router();
  const rc = (req: Parameters<typeof requestContextOf>[1]) => requestContextOf(ctx, req);
  const tags = ['runs'];

  route(
    router,
    {
      method: 'get',
      path: '/v0/runs',
      summary: "The drive's runs (changes grouped by X-Drive-Run-Id or the default rule), newest first",
      tags,
      auth: true,
      query: z.object({ cursor: cursorParam, limit: limitParam(100, 20) }),
      responses: { 200: { description: 'run page', schema: runPageSchema } },
    },
    async ({ query, req }) => {
      const page = await listRuns(rc(req), query);
      return { items: page.items.map(runOut), next_cursor: page.next_cursor };
    },
  );

  route(
    router,
    {
      method: 'get',
      path: '/v0/runs/:run_id',
      summary: 'One run with its changes (paged, oldest first)',
      tags,
      auth: true,
      params: runIdParams,
      query: z.object({ cursor: cursorParam, limit: limitParam(200, 100) }),
      errors: ['RUN_NOT_FOUND', 'BAD_CURSOR'],
      responses: { 200: { description: 'the run', schema: runDetailSchema } },
    },
    async ({ params, query, req }) => runDetailOut(await getRun(rc(req), params.run_id, query)),
  );

  route(
    router,
    {
      method: 'post',
      path: '/v0/runs/:run_id/revert',
      summary:
        "Undo exactly this run's changes, all or nothing, as a new run (revert_run_id); 409 RUN_CONFLICT lists " +
        'later changes by other runs (force skips them); dry_run changes nothing and takes no lock; one undo, rewind ' +
        'or preview per drive at a time (429 with Retry-After)',
      tags,
      auth: true,
      params: runIdParams,
      body: undoBody,
      errors: ['RUN_NOT_FOUND', 'RUN_CONFLICT', 'HISTORY_PURGED', 'STORAGE_QUOTA_EXCEEDED', 'SERVICE_BUSY'],
      responses: { 200: { description: 'every change with its outcome', schema: revertOutSchema } },
    },
    async ({ params, body, req }) => {
      const r = await revertRun(rc(req), params.run_id, { dryRun: body.dry_run, force: body.force });
      return { run_id: r.run_id, ...undoOut(r) };
    },
  );

  route(
    router,
    {
      method: 'post',
      path: '/v0/snapshots',
      summary: 'Name the drive as it is now (its current seq); pins what it references against the trash purge',
      tags,
      auth: true,
      body: z.object({ label: z.string().min(1).max(200) }),
      errors: ['SNAPSHOT_LIMIT_REACHED'],
      responses: { 201: { description: 'the snapshot', schema: snapshotOutSchema } },
    },
    async ({ body, req }) => snapshotOut(await createSnapshot(rc(req), body.label)),
  );

  route(
    router,
    {
      method: 'get',
      path: '/v0/snapshots',
      summary: "The drive's live snapshots, newest first",
      tags,
      auth: true,
      responses: { 200: { description: 'snapshots', schema: z.object({ items: z.array(snapshotOutSchema) }) } },
    },
    async ({ req }) => ({ items: (await listSnapshots(rc(req))).map(snapshotOut) }),
  );

  route(
    router,
    {
      method: 'delete',
      path: '/v0/snapshots/:snapshot_id',
      summary: 'Delete a snapshot (what only it pinned is purged on the usual schedule)',
      tags,
      auth: true,
      params: z.object({ snapshot_id: idOf('snp') }),
      errors: ['SNAPSHOT_NOT_FOUND'],
      responses: { 200: { description: 'the deleted snapshot', schema: snapshotOutSchema } },
    },
    async ({ params, req }) => snapshotOut(await deleteSnapshot(rc(req), params.snapshot_id)),
  );

  route(
    router,
    {
      method: 'post',
      path: '/v0/drives/me/rewind',
      summary:
        'Make the drive (or the paths under prefix) look as it did at to_seq or to_snapshot, by new versions, deletes ' +
        'and restores, as one revertible run; same conflicts, preview and answer as a revert',
      tags,
      auth: true,
      body: z
        .strictObject({
          to_seq: z.number().int().min(0).optional(),
          to_snapshot: idOf('snp').optional(),
          prefix: z.string().max(256).optional(),
          dry_run: z.boolean().default(false),
          force: z.boolean().default(false),
        })
        // Exactly one of to_seq and to_snapshot: the domain says so (400 INVALID_ARGUMENT), as the document can.
        .describe('give exactly one of to_seq and to_snapshot'),
      errors: [
        'SNAPSHOT_NOT_FOUND',
        'RUN_CONFLICT',
        'HISTORY_PURGED',
        'STORAGE_QUOTA_EXCEEDED',
        'INVALID_ARGUMENT',
        'SERVICE_BUSY',
      ],
      responses: { 200: { description: 'every change with its outcome', schema: rewindOutSchema } },
    },
    async ({ body, req }) => {
      const r = await rewindDrive(rc(req), {
        toSeq: body.to_seq,
        toSnapshot: body.to_snapshot,
        prefix: body.prefix,
        dryRun: body.dry_run,
        force: body.force,
      });
      return { to_seq: r.to_seq, ...undoOut(r) };
    },
  );
  return router;
}
