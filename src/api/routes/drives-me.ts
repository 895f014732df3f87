import type { Router } from 'express';
import { z } from 'zod';
import { authOf, requestContextOf } from '../http/auth-context.js';
import type { AppContext } from '../../platform/context.js';
import { driveOverview } from '../../drives/drives.js';
import { driveOverviewOut } from '../../shapes/drives.js';
import { driveUsageOut } from '../../shapes/usage.js';
import { driveUsage } from '../../usage/usage.js';
import { route, RouteRegistry } from '../http/route.js';
import { setDriveSettings } from '../../drives/wiki-switch.js';
import { DRIVE_NAME_MAX } from '../../drives/drive-settings.js';

const usageRow = z.object({ used: z.number().int(), limit: z.number().int().describe('0 means unlimited') });

const driveName = z
  .string()
  .max(400)
  .nullable()
  .describe(
    `the name its owner gave the drive (any characters but control ones, at most ${DRIVE_NAME_MAX}); null: unnamed`,
  );

const driveOut = z.object({
  drive_id: z.string(),
  name: driveName,
  email: z.string().nullable(),
  organization_id: z.string().nullable(),
  claimed: z.boolean(),
  claimed_at: z.iso.datetime().nullable(),
  created_at: z.iso.datetime(),
  expires_at: z.iso.datetime().nullable().describe('unclaimed drives only: removal at the latest (30-day limit)'),
  last_activity_at: z.iso.datetime(),
  scope: z.enum(['pre_claim', 'full']),
  read_only: z.boolean().describe('the credential reads only (scope drive:read, a read-only API key): writes are 403'),
  settings: z.object({
    wiki_indexing: z
      .boolean()
      .describe('whether artifact text is sent to the language model that builds the wiki (on by default)'),
  }),
});

const drivePatch = z.strictObject({
  name: driveName.optional().describe('the new name; empty or null clears it'),
  settings: z
    .strictObject({
      wiki_indexing: z
        .boolean()
        .optional()
        .describe('false: no artifact content is sent out; true: the wiki indexes the drive again, in the background'),
    })
    .optional(),
});

const usageOut = z.object({
  drive_id: z.string(),
  storage: usageRow.extend({
    pinned_by_snapshots: z
      .number()
      .int()
      .describe(
        'bytes of trashed artifacts kept past their purge time because a live snapshot pins them; already part of ' +
          '`used` (a version counts in storage until it is purged, and a snapshot defers the purge)',
      ),
  }),
  writes: usageRow.extend({ resets_at: z.iso.datetime() }),
  ops_this_month: z.object({ month: z.string(), reads: usageRow, indexing_ops: usageRow, retrieval_queries: usageRow }),
});

/** The authenticated drive's overview and usage; the drive comes only from the credential. */
export function drivesMeRouter(routes: RouteRegistry, ctx: AppContext): Router {
  const router = routes.router();

  route(
    router,
    {
      method: 'get',
      path: '/v0/drives/me',
      summary: 'The authenticated drive',
      tags: ['drives'],
      auth: true,
      responses: { 200: { description: 'drive overview', schema: driveOut } },
    },
    async ({ req }) => driveOverviewOut(await driveOverview(requestContextOf(ctx, req)), authOf(req)),
  );

  route(
    router,
    {
      method: 'patch',
      path: '/v0/drives/me',
      summary: "Change the authenticated drive's name or settings (the owner's wiki indexing switch)",
      tags: ['drives'],
      auth: true,
      body: drivePatch,
      errors: ['NOT_FOUND'],
      responses: { 200: { description: 'drive overview after the change', schema: driveOut } },
    },
    async ({ body, req }) => driveOverviewOut(await setDriveSettings(requestContextOf(ctx, req), body), authOf(req)),
  );

  route(
    router,
    {
      method: 'get',
      path: '/v0/drives/me/usage',
      summary: 'Usage of the authenticated drive: storage, writes this hour, operations this UTC month',
      tags: ['drives'],
      auth: true,
      responses: {
        200: { description: 'usage; each row is {used, limit} and limit 0 means unlimited', schema: usageOut },
      },
    },
    async ({ req }) => driveUsageOut(await driveUsage(requestContextOf(ctx, req))),
  );

  return router;
}
