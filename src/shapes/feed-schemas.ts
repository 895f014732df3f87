import { z } from 'zod';

/** Request shapes of the change feed (catch-up, stream, webhooks, the MCP `changes` tool): docs/decisions/feed.md. */
const MAX_SEQ = Number.MAX_SAFE_INTEGER;

export const seqSchema = z.coerce.number().int().min(0).max(MAX_SEQ);

export const afterParam = z.coerce
  .number()
  .int()
  .min(0)
  .max(MAX_SEQ)
  .optional()
  .describe('return the events with seq > after, oldest first (0: from the beginning)');

export const prefixParam = z
  .string()
  .min(1)
  .max(256)
  .optional()
  .describe("only events whose path (or a rename or move's from/to) starts with this");

/** One Server-Sent Events message for an event (`id`, `event`, `data` lines; JSON has no raw newline). */
export function sseMessage(e: { seq: number; action: string }): string {
  return `id: ${e.seq}\nevent: ${e.action}\ndata: ${JSON.stringify(e)}\n\n`;
}

const ts = z.string().describe('RFC 3339 timestamp');
/** Action names as events carry them (`artifact.created`, `folder.moved` …). */
export const actionName = z
  .string()
  .max(64)
  .regex(/^[a-z_]+\.[a-z_]+$/, 'an event action such as artifact.created');

export const webhookInSchema = z.object({
  url: z.string().min(1).max(2048).describe('http(s) URL the events are POSTed to (https in production)'),
  actions: z.array(actionName).max(32).optional().describe('only these actions; absent or empty: every action'),
  prefix: z.string().min(1).max(256).optional().describe('only events whose path (or from/to) starts with this'),
});

export const webhookOutSchema = z.object({
  webhook_id: z.string(),
  url: z.string(),
  actions: z.array(z.string()),
  prefix: z.string().nullable(),
  state: z.enum(['active', 'failing']).describe('failing: gave up on an event; deliveries wait for a replay'),
  failing_since: ts.nullable(),
  previous_secret_expires_at: ts.nullable().describe('while set, deliveries carry two signatures'),
  created_at: ts,
});
export const webhookCreatedSchema = webhookOutSchema.extend({
  secret: z.string().describe('the signing secret; shown only here and at rotation'),
});
export const webhookListSchema = z.object({ items: z.array(webhookOutSchema) });
export const webhookRotatedSchema = webhookCreatedSchema;
export const webhookDeletedSchema = z.object({ ok: z.literal(true), webhook_id: z.string() });

export const deliveryOutSchema = z.object({
  delivery_id: z.string().describe('X-Drive-Delivery-Id of the attempt'),
  seq: z.number().int(),
  event_id: z.string(),
  attempt: z.number().int(),
  outcome: z.enum(['delivered', 'failed', 'gave_up']),
  status_code: z.number().int().nullable(),
  error: z.string().nullable(),
  duration_ms: z.number().int(),
  created_at: ts,
});
export const deliveriesOutSchema = z.object({
  webhook: webhookOutSchema,
  items: z.array(deliveryOutSchema).describe('recent attempts, newest first'),
  pending: z.number().int().describe('events waiting for delivery'),
  next_seq: z.number().int().nullable().describe('the oldest waiting seq: where delivery stands'),
  replay_url: z.string().describe('POST {"after": <seq>} here to redeliver every matching event after that seq'),
});

export const replayInSchema = z.object({
  after: z.number().int().min(0).max(MAX_SEQ).describe('redeliver the matching events with seq > after'),
});
export const replayOutSchema = z.object({
  webhook: webhookOutSchema,
  queued: z.number().int().describe('events queued for delivery now (at most one page)'),
  more: z.boolean().describe('more events follow: they are queued page by page as the first ones are delivered'),
});
