import type { Router } from 'express';
import { z } from 'zod';
import { requestContextOf } from '../http/auth-context.js';
import type { AppContext } from '../../platform/context.js';
import { mintKeyForCaller } from '../../identity/api-keys.js';
import { DEFAULT_MEMORY_PREFIX } from '../../files/memory/memory-tree.js';
import { memoryPrefixSchema } from '../../shapes/memory-schemas.js';
import { route, RouteRegistry } from '../http/route.js';

const keyIn = z.strictObject({
  name: z.string().min(1).max(64).describe('what the key is for, shown on the dashboard (e.g. "claude-code")'),
  read_only: z.boolean().optional().describe('true: the key only reads, lists, searches and finds (default false)'),
  memory_prefix: memoryPrefixSchema.optional(),
});
const keyOut = z.object({
  key_id: z.string(),
  name: z.string(),
  api_key: z.string().describe('the key itself (ad_live_…): shown once, stored hashed'),
  read_only: z.boolean(),
  memory_prefix: z
    .string()
    .describe(
      `the drive folder the memory tool's /memories maps to for this key (${DEFAULT_MEMORY_PREFIX} unless set)`,
    ),
  created_at: z.iso.datetime(),
});

/** API keys an agent mints for itself once its drive is claimed (the dashboard mints and revokes them too). */
export function apiKeysRouter(routes: RouteRegistry, ctx: AppContext): Router {
  const router = routes.router();
  route(
    router,
    {
      method: 'post',
      path: '/v0/api-keys',
      summary: 'Mint an API key for this claimed drive (for an MCP client that sends a fixed header); shown once',
      tags: ['drives'],
      auth: true,
      body: keyIn,
      responses: { 201: { description: 'the new key, shown once', schema: keyOut } },
    },
    async ({ body, req }) => {
      const key = await mintKeyForCaller(requestContextOf(ctx, req), body.name, {
        readOnly: body.read_only ?? false,
        memoryPrefix: body.memory_prefix ?? null,
      });
      return {
        key_id: key.id,
        name: body.name,
        api_key: key.key,
        read_only: key.readOnly,
        memory_prefix: key.memoryPrefix ?? DEFAULT_MEMORY_PREFIX,
        created_at: key.createdAt.toISOString(),
      };
    },
  );
  return router;
}
