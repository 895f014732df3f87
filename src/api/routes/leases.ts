import type { Router } from 'express';
import { z } from 'zod';
import { requestContextOf } from '../http/auth-context.js';
import type { AppContext } from '../../platform/context.js';
import { route, type RouteRegistry } from '../http/route.js';
import { acquireLease, listLeases, releaseLease, renewLease } from '../../files/leases/leases.js';
import { leaseListSchema, leaseOut, leaseOutSchema } from '../../shapes/leases.js';

const ttl = z.number().int().min(5).max(3600).describe('seconds the lease lives (5-3600)');
const leaseParams = z.object({ lease_id: z.string().regex(/^lse_[0-9a-z]{26}$/) });
const pathText = z.string().min(1).max(1024);

/** Leases with fencing tokens (issue 56; docs/decisions/leases.md). */
export function leasesRouter(routes: RouteRegistry, ctx: AppContext): Router {
  const router = routes.router();
  const rc = (req: Parameters<typeof requestContextOf>[1]) => requestContextOf(ctx, req);
  const tags = ['leases'];

  route(
    router,
    {
      method: 'post',
      path: '/v0/leases',
      summary:
        'Hold paths, a prefix or a glob (*, **, ?) for ttl_s seconds. Exclusive: writes there need the fence in ' +
        'X-Drive-Fence (423 LOCKED without it, 409 FENCE_STALE with an older one); shared: no one writes there. ' +
        '409 LEASE_CONFLICT names the live leases in the way',
      tags,
      auth: true,
      body: z.object({
        paths: z.array(pathText).max(100).optional(),
        prefix: pathText.optional(),
        glob: z.string().min(1).max(256).optional(),
        mode: z.enum(['exclusive', 'shared']).default('exclusive'),
        ttl_s: ttl,
        note: z.string().max(500).optional(),
      }),
      errors: ['INVALID_LEASE', 'LEASE_CONFLICT', 'LEASE_LIMIT_REACHED'],
      responses: { 201: { description: 'the lease and its fence', schema: leaseOutSchema } },
    },
    async ({ body, req }) =>
      leaseOut(
        await acquireLease(rc(req), {
          paths: body.paths,
          prefix: body.prefix,
          glob: body.glob,
          mode: body.mode,
          ttlS: body.ttl_s,
          note: body.note,
        }),
      ),
  );

  route(
    router,
    {
      method: 'post',
      path: '/v0/leases/:lease_id/renew',
      summary: 'A live lease lives ttl_s more seconds from now, with the same fence; 409 LEASE_EXPIRED once it ended',
      tags,
      auth: true,
      params: leaseParams,
      body: z.object({ ttl_s: ttl }),
      errors: ['LEASE_NOT_FOUND', 'LEASE_EXPIRED'],
      responses: { 200: { description: 'the lease', schema: leaseOutSchema } },
    },
    async ({ params, body, req }) => leaseOut(await renewLease(rc(req), params.lease_id, body.ttl_s)),
  );

  route(
    router,
    {
      method: 'delete',
      path: '/v0/leases/:lease_id',
      summary: 'End a lease now (its fence stays spent); ending an ended lease changes nothing',
      tags,
      auth: true,
      params: leaseParams,
      errors: ['LEASE_NOT_FOUND'],
      responses: { 200: { description: 'the ended lease', schema: leaseOutSchema } },
    },
    async ({ params, req }) => leaseOut(await releaseLease(rc(req), params.lease_id), false),
  );

  route(
    router,
    {
      method: 'get',
      path: '/v0/leases',
      summary: "The drive's live leases, or those covering path (a file, or anything under a folder); no fences",
      tags,
      auth: true,
      query: z.object({ path: pathText.optional() }),
      responses: { 200: { description: 'live leases', schema: leaseListSchema } },
    },
    async ({ query, req }) => ({ items: (await listLeases(rc(req), query.path)).map((l) => leaseOut(l, false)) }),
  );
  return router;
}
