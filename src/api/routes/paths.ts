import type { Router } from 'express';
import { z } from 'zod';
import { pathsForNames } from '../../files/file-names.js';
import { route, RouteRegistry } from '../http/route.js';

/** The name rule for clients: which path a person's file name becomes (src/files/file-names.ts). */
const suggestionSchema = z.object({
  name: z.string(),
  path: z.string().describe('the spec path the name maps to (send the name as X-Drive-Filename beside it)'),
  mapped: z.boolean().describe('true when the path differs from the name'),
});

const fileName = z.string().min(1).max(1024);

export function pathsRouter(routes: RouteRegistry): Router {
  const router = routes.router();
  route(
    router,
    {
      method: 'get',
      path: '/v0/paths/suggest',
      summary: 'Map file names as people have them to spec paths (one batch: collisions numbered)',
      tags: ['artifacts'],
      auth: true,
      query: z.object({
        name: z
          .union([fileName, z.array(fileName).min(1).max(100)])
          .transform((v) => (Array.isArray(v) ? v : [v]))
          .describe('a file name or relative path (repeatable: 1-100 names of 1-1024 characters)'),
      }),
      responses: {
        200: {
          description: 'one suggestion per name, in order',
          schema: z.object({ items: z.array(suggestionSchema) }),
        },
      },
    },
    ({ query }) => ({ items: pathsForNames(query.name) }),
  );
  return router;
}
