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
