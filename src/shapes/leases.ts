import { iso } from '../lib/time.js';
import { z } from 'zod';
import type { LeaseRow } from '../files/leases/lease-guard.js';

/** Leases (issue 56): public shapes and their schemas. */

const coversSchema = z.object({
  paths: z.array(z.string()),
  prefix: z.string().nullable(),
  glob: z.string().nullable(),
});

export const leaseOutSchema = z.object({
  lease_id: z.string().describe('lse_…'),
  fence: z
    .number()
    .int()
    .optional()
    .describe('send it in X-Drive-Fence (MCP: fence) with every write under the lease (only in grants and renewals)'),
  mode: z.enum(['exclusive', 'shared']),
  expires_at: z.string().describe('RFC 3339; live until then and not after, by the database clock'),
  holder: z.object({ actor: z.string().nullable(), credential: z.string() }),
  covers: coversSchema,
  note: z.string().nullable(),
  live: z.boolean(),
});

/** The holder learns its fence from the grant or a renewal; a listing shows who holds what, not the fence to write. */
export const leaseOut = (r: LeaseRow, withFence = true) => ({
  lease_id: r.id,
  ...(withFence ? { fence: Number(r.fence) } : {}),
  mode: r.mode,
  expires_at: iso(r.expires_at)!,
  holder: { actor: r.holder_actor, credential: r.holder_credential },
  covers: { paths: r.paths, prefix: r.prefix, glob: r.glob },
  note: r.note,
  live: r.live,
});

export const leaseListSchema = z.object({ items: z.array(leaseOutSchema) });
