import type { Router } from 'express';
import { z } from 'zod';
import { requestContextOf } from '../http/auth-context.js';
import type { AppContext } from '../../platform/context.js';
import { MODALITIES, type SearchHit } from '../../search/engine.js';
import type { FusedPassageHit, SearchService } from '../../search/service.js';
import {
  findHitOut,
  findHitSchema,
  searchHitOut,
  searchHitSchema,
  semanticOut,
  semanticSchema,
} from '../../shapes/search.js';
import { route, RouteRegistry } from '../http/route.js';
import { findPage, searchPage } from '../../search/search-page.js';
import { cursorParam } from '../../shapes/artifact-schemas.js';

/** GET /v0/search and GET /v0/find (SPEC 4.2): parse, call the search service, shape hits. */

const repeatable = <T extends z.ZodType>(item: T) =>
  z.preprocess((v) => (v === undefined ? [] : Array.isArray(v) ? v : [v]), z.array(item).default([]));
const timestamp = z.iso.datetime({ offset: true }).transform((s) => new Date(s));

const commonQuery = {
  label: repeatable(
    z
      .string()
      .max(64)
      .regex(/^[a-z0-9_-]+$/, 'labels are lowercase [a-z0-9_-]+'),
  ).describe('repeatable; AND-combined'),
  file_type: z.string().min(1).max(32).optional(),
  prefix: z.string().max(256).optional(),
  updated_after: timestamp.optional().describe('RFC 3339; inclusive'),
  updated_before: timestamp.optional().describe('RFC 3339; inclusive'),
  limit: z.coerce.number().int().min(1).max(100).default(20),
  cursor: cursorParam.describe('next_cursor of the previous page (opaque, base64url); resend the same q and filters'),
};
const searchQuery = z.object({ q: z.string().min(1).max(200), ...commonQuery });
const findQuery = z.object({
  q: z.string().min(1).max(500),
  mode: z.enum(['hybrid', 'lexical', 'semantic']).default('hybrid'),
  modality: repeatable(z.enum(MODALITIES)).describe('repeatable; OR-combined'),
  ...commonQuery,
});

const page = <T extends z.ZodType>(item: T) => z.object({ items: z.array(item), next_cursor: z.string().nullable() });

/** Hit `url` and `permalink` are built like ArtifactOut's (docs/decisions.md, Search). */
export function searchRouter(routes: RouteRegistry, ctx: AppContext, service: SearchService): Router {
  const router = routes.router();
  const base = (h: SearchHit) => searchHitOut(ctx.config, h);
  const findHit = (h: FusedPassageHit) => findHitOut(ctx.config, h);
  const filtersOf = (q: z.output<typeof searchQuery>) => ({
    labels: q.label,
    fileType: q.file_type,
    prefix: q.prefix,
    updatedAfter: q.updated_after,
    updatedBefore: q.updated_before,
    limit: q.limit,
  });

  route(
    router,
    {
      method: 'get',
      path: '/v0/search',
      summary: 'Lexical full-text search over path, first ~16 KB of content, metadata and labels',
      tags: ['search'],
      auth: true,
      query: searchQuery,
      responses: {
        200: {
          description:
            'ranked hits (BM25), best first; next_cursor pages on (to a depth of 200 hits). `match` is `all` when ' +
            'every word matched (the syntax: implicit AND) and `any` when that found nothing and hits match any word',
          schema: page(searchHitSchema).extend({
            match: z
              .enum(['all', 'any'])
              .describe('all: every word matched; any: nothing matched every word, so any word may match'),
          }),
        },
      },
    },
    async ({ query, req }) => {
      const page = await searchPage(requestContextOf(ctx, req), service, {
        q: query.q,
        filters: filtersOf(query),
        paging: { cursor: query.cursor, query },
      });
      return { items: page.items.map(base), next_cursor: page.next_cursor, match: page.match };
    },
  );

  route(
    router,
    {
      method: 'get',
      path: '/v0/find',
      summary: 'Passage retrieval: hybrid (lexical + semantic fused by RRF, k=60), lexical or semantic',
      tags: ['search'],
      auth: true,
      query: findQuery,
      responses: {
        200: {
          description:
            'passage hits, best first; next_cursor pages on (to a depth of 200 hits); semantic says what the ' +
            'semantic leg did (off, catching up, unavailable)',
          schema: page(findHitSchema).extend({ semantic: semanticSchema }),
        },
        500: { description: 'mode=semantic without an embeddings provider (EMBEDDINGS_NOT_CONFIGURED)' },
        502: { description: 'mode=semantic and the embeddings provider failed (EMBEDDINGS_UNAVAILABLE)' },
      },
    },
    async ({ query, req }) => {
      const page = await findPage(requestContextOf(ctx, req), service, {
        find: { q: query.q, mode: query.mode, modalities: query.modality, ...filtersOf(query) },
        paging: { cursor: query.cursor, query },
      });
      return { items: page.items.map(findHit), next_cursor: page.next_cursor, semantic: semanticOut(page.semantic) };
    },
  );

  return router;
}
