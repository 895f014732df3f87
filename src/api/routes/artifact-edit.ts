import type { Router } from 'express';
import { z } from 'zod';
import type { AppContext } from '../../platform/context.js';
import { editArtifact } from '../../files/edit.js';
import { actorHeader, ifMatchHeader, mergeConflictSchema } from '../../shapes/artifact-schemas.js';
import { editBodySchema, editInputOf, editOut, editResultSchema } from '../../shapes/edit-schemas.js';
import { requestContextOf } from '../http/auth-context.js';
import { ifMatchOf } from '../http/headers.js';
import { route, type RouteRegistry } from '../http/route.js';
import { artIdParams, onlyArtId } from './artifacts.js';

/**
 * Line operations at the REST door (issue 57): the MCP `edit` tool's exact-text edits and insert at a line, on an
 * artifact by id (yours, or one a grant lets you write), as ONE new version (docs/decisions/memory-tool.md).
 */
export function artifactEditRouter(routes: RouteRegistry, ctx: AppContext): Router {
  const router = routes.router();
  route(
    router,
    {
      method: 'post',
      path: '/v0/artifacts/:art_id/edit',
      summary:
        'Edit a text artifact: old_text → new_text replacements in order, and/or insert_text after insert_line ' +
        '(0: top), as one new version; dry_run answers the diff only. If-Match: 412 on another version (merge: ' +
        'three-way instead)',
      tags: ['artifacts'],
      auth: true,
      params: artIdParams,
      headers: z.object({ 'x-drive-actor': actorHeader, 'if-match': ifMatchHeader }),
      body: editBodySchema,
      responses: {
        200: {
          description: 'the edit, its diff and (when written) the artifact at its new version',
          schema: editResultSchema,
        },
        409: {
          description: 'EDIT_NO_MATCH, EDIT_AMBIGUOUS; MERGE_CONFLICT carries the hunks',
          schema: mergeConflictSchema,
        },
      },
    },
    async ({ params, body, req }) =>
      editOut(
        ctx.config,
        await editArtifact(requestContextOf(ctx, req), {
          target: { artId: params.art_id },
          ifMatch: ifMatchOf(req),
          ...editInputOf(body),
        }),
      ),
    onlyArtId,
  );
  return router;
}
