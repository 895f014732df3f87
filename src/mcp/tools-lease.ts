import { z } from 'zod';
import { holdLease } from '../files/leases/leases.js';
import { leaseOut } from '../shapes/leases.js';
import { defineTool, writes, type ToolEnv, type ToolSet } from './tool-kit.js';

/** lease (issue 56): take, renew or release a lease in one tool, so the tool list pays for one entry. */
export function registerLeaseTools(server: ToolSet, env: ToolEnv): void {
  defineTool(
    server,
    env,
    'lease',
    {
      title: 'Lease paths',
      description: 'acquire paths/prefix/glob for ttl_s; send its fence with writes there. renew/release: lease_id.',
      input: {
        action: z.enum(['acquire', 'renew', 'release']).default('acquire'),
        paths: z.array(z.string().min(1).max(1024)).max(100).optional(),
        prefix: z.string().min(1).max(1024).optional(),
        glob: z.string().min(1).max(256).optional(),
        mode: z.enum(['exclusive', 'shared']).default('exclusive'),
        ttl_s: z.number().int().min(5).max(3600).default(60),
        lease_id: z.string().max(40).optional(),
      },
      annotations: writes(false, false),
      budget: 'write',
      unfenced: true,
    },
    async (args, rc) => {
      const lease = await holdLease(rc, {
        action: args.action,
        leaseId: args.lease_id,
        request: { paths: args.paths, prefix: args.prefix, glob: args.glob, mode: args.mode, ttlS: args.ttl_s },
      });
      const l = leaseOut(lease, args.action !== 'release');
      const what = args.action === 'release' ? 'released' : `fence ${l.fence}, until ${l.expires_at}`;
      return { structured: l, text: `lease ${l.lease_id} (${l.mode}): ${what}` };
    },
  );
}
