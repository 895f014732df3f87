import { type Router, type RequestHandler } from 'express';
import { z } from 'zod';
import type { AppContext } from '../../platform/context.js';
import { hasPrefix } from '../../lib/ids.js';
import { createGrant, listGrants, patchGrant, revokeGrant } from '../../sharing/grants.js';
import { listShares, mintShare, revokeShare, rotateShare } from '../../sharing/shares.js';
import { grantOut, shareMintOut, shareOut } from '../../shapes/sharing.js';
import { AppError } from '../../lib/errors.js';
import { requestContextOf } from '../http/auth-context.js';
import { route, RouteRegistry } from '../http/route.js';
import { actorHeader } from '../../shapes/artifact-schemas.js';
import {
  grantCreateInSchema,
  grantOutSchema,
  grantPatchInSchema,
  resourceQuery,
  shareCreateInSchema,
  shareMintOutSchema,
  shareOutSchema,
} from '../../shapes/sharing-schemas.js';

/** Grants and share links (spec 4.6). Every rule is in src/sharing; this only parses and shapes. */
const headers = z.object({ 'x-drive-actor': actorHeader });
const grnParams = z.object({ grn_id: z.string().max(64) });
const shrParams = z.object({ shr_id: z.string().max(64) });
// A malformed id is simply an unknown grant or share (404), like another drive's.
const onlyId =
  (param: string, prefix: 'grn' | 'shr'): RequestHandler =>
  (req, _res, next) =>
    next(
      hasPrefix(String(req.params[param]), prefix)
        ? undefined
        : new AppError('NOT_FOUND', `no live ${prefix === 'grn' ? 'grant' : 'share link'} with this id`),
    );

export function sharingRouter(routes: RouteRegistry, ctx: AppContext): Router {
  const router = routes.router();
  const rc = (req: Parameters<typeof requestContextOf>[1]) => requestContextOf(ctx, req);

  route(
    router,
    {
      method: 'post',
      path: '/v0/grants',
      summary: 'Create (or fetch) the grant for a principal on a resource; needs can_manage',
      tags: ['grants'],
      auth: true,
      body: grantCreateInSchema,
      headers,
      responses: { 201: { description: 'grant', schema: grantOutSchema } },
    },
    async ({ body, req }) =>
      grantOut(
        await createGrant(rc(req), {
          resource: body.resource,
          principal: body.principal,
          role: body.role,
          expiresIn: body.expires_in,
        }),
      ),
  );

  route(
    router,
    {
      method: 'get',
      path: '/v0/grants',
      summary: 'List the live grants on a resource; needs can_manage',
      tags: ['grants'],
      auth: true,
      query: resourceQuery,
      responses: { 200: { description: 'grant list', schema: z.object({ items: z.array(grantOutSchema) }) } },
    },
    async ({ query, req }) => ({ items: (await listGrants(rc(req), query.resource)).map(grantOut) }),
  );

  route(
    router,
    {
      method: 'patch',
      path: '/v0/grants/:grn_id',
      summary: "Change a grant's role and/or expiry (expires_in null: permanent); needs can_manage",
      tags: ['grants'],
      auth: true,
      params: grnParams,
      body: grantPatchInSchema,
      headers,
      responses: { 200: { description: 'grant', schema: grantOutSchema } },
    },
    async ({ params, body, req }) =>
      grantOut(await patchGrant(rc(req), params.grn_id, { role: body.role, expiresIn: body.expires_in })),
    onlyId('grn_id', 'grn'),
  );

  route(
    router,
    {
      method: 'delete',
      path: '/v0/grants/:grn_id',
      summary: 'Revoke a grant; needs can_manage, or the grantee revoking its own',
      tags: ['grants'],
      auth: true,
      params: grnParams,
      headers,
      responses: { 200: { description: 'the revoked grant', schema: grantOutSchema.extend({ ok: z.literal(true) }) } },
    },
    async ({ params, req }) => ({ ok: true as const, ...grantOut(await revokeGrant(rc(req), params.grn_id)) }),
    onlyId('grn_id', 'grn'),
  );

  route(
    router,
    {
      method: 'post',
      path: '/v0/shares',
      summary: 'Mint a share link (needs can_share); share_key is returned only now',
      tags: ['shares'],
      auth: true,
      body: shareCreateInSchema,
      headers,
      responses: { 201: { description: 'share mint result', schema: shareMintOutSchema } },
    },
    async ({ body, req }) =>
      shareMintOut(
        ctx.config,
        await mintShare(rc(req), {
          resource: body.resource,
          role: body.role,
          expiresIn: body.expires_in,
          password: body.password,
          label: body.label,
        }),
      ),
  );

  route(
    router,
    {
      method: 'get',
      path: '/v0/shares',
      summary: 'List the live share links on a resource (never their keys); needs can_manage',
      tags: ['shares'],
      auth: true,
      query: resourceQuery,
      responses: { 200: { description: 'share list', schema: z.object({ items: z.array(shareOutSchema) }) } },
    },
    async ({ query, req }) => ({ items: (await listShares(rc(req), query.resource)).map(shareOut) }),
  );

  route(
    router,
    {
      method: 'delete',
      path: '/v0/shares/:shr_id',
      summary: 'Revoke a share link; needs can_manage',
      tags: ['shares'],
      auth: true,
      params: shrParams,
      headers,
      responses: { 200: { description: 'the revoked link', schema: shareOutSchema.extend({ ok: z.literal(true) }) } },
    },
    async ({ params, req }) => ({ ok: true as const, ...shareOut(await revokeShare(rc(req), params.shr_id)) }),
    onlyId('shr_id', 'shr'),
  );

  route(
    router,
    {
      method: 'post',
      path: '/v0/shares/:shr_id/rotate',
      summary: "Rotate a share link's key (the old one dies at once); needs can_share",
      tags: ['shares'],
      auth: true,
      params: shrParams,
      headers,
      responses: { 200: { description: 'share mint result with the new key', schema: shareMintOutSchema } },
    },
    async ({ params, req }) => shareMintOut(ctx.config, await rotateShare(rc(req), params.shr_id)),
    onlyId('shr_id', 'shr'),
  );

  return router;
}
