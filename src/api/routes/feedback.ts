import type { Router } from 'express';
import { z } from 'zod';
import type { AppContext } from '../../platform/context.js';
import { FEEDBACK_STATUSES, getFeedback, submitFeedback } from '../../feedback/feedback.js';
import { feedbackOut } from '../../shapes/feedback.js';
import { requestContextOf } from '../http/auth-context.js';
import { route, RouteRegistry } from '../http/route.js';
import { actorHeader, idOf } from '../../shapes/artifact-schemas.js';

/** Feedback tickets (spec 4.8). Status changes are for operators only (scripts/feedback.ts), not on this surface. */
const tags = ['feedback'];
const ts = z.string().describe('RFC 3339 timestamp');

const feedbackInSchema = z.object({
  kind: z
    .string()
    .regex(/^[a-z0-9_-]{1,32}$/)
    .describe('open vocabulary, e.g. bug, feature, question, other'),
  title: z.string().trim().min(1).max(200),
  body: z.string().trim().min(1).max(20_000),
  contact: z
    .union([z.string().max(320), z.boolean()])
    .nullable()
    .optional()
    .describe('consent to be contacted (true) or an address'),
  attachments: z.array(idOf('art')).max(10).optional().describe('art_ ids of this drive, snapshotted at submit'),
});

const feedbackOutSchema = z.object({
  fbk_id: z.string(),
  id: z.string(),
  drive_id: z.string(),
  kind: z.string(),
  title: z.string(),
  body: z.string(),
  contact: z.union([z.string(), z.boolean()]).nullable(),
  status: z.enum(FEEDBACK_STATUSES),
  attachments: z.array(
    z.object({
      art_id: z.string(),
      path: z.string(),
      version_number: z.number().int(),
      hash: z.string(),
      size_bytes: z.number().int(),
      content_type: z.string(),
    }),
  ),
  created_at: ts,
  updated_at: ts,
});

export function feedbackRouter(routes: RouteRegistry, ctx: AppContext): Router {
  const router = routes.router();
  route(
    router,
    {
      method: 'post',
      path: '/v0/feedback',
      summary: 'File a feedback ticket',
      tags,
      auth: true,
      body: feedbackInSchema,
      headers: z.object({ 'x-drive-actor': actorHeader }),
      responses: { 201: { description: 'the ticket', schema: feedbackOutSchema } },
    },
    async ({ body, req }) => feedbackOut(await submitFeedback(requestContextOf(ctx, req), body)),
  );

  route(
    router,
    {
      method: 'get',
      path: '/v0/feedback/:fbk_id',
      summary: "A feedback ticket's lifecycle status (this drive's tickets only)",
      tags,
      auth: true,
      params: z.object({ fbk_id: z.string().max(64) }),
      responses: { 200: { description: 'the ticket', schema: feedbackOutSchema } },
    },
    async ({ params, req }) => feedbackOut(await getFeedback(requestContextOf(ctx, req), params.fbk_id)),
  );
  return router;
}
