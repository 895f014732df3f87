import { ok, type DriveClient } from './client.js';
import type { paths } from './schema.js';

/**
 * Leases with fencing tokens (docs/decisions/leases.md): the writes made under a lease carry its `fence` as
 * X-Drive-Fence (`new Drive({ ...options, fence: lease.fence })`).
 */
export type LeaseRequest = NonNullable<paths['/v0/leases']['post']['requestBody']>['content']['application/json'];
export type Lease = paths['/v0/leases']['post']['responses']['201']['content']['application/json'];

export const leasesOf = (client: DriveClient) => ({
  /** 201 the lease; 409 LEASE_CONFLICT names the live leases in the way. */
  acquire: (body: LeaseRequest): Promise<Lease> => ok(client.api.POST('/v0/leases', { body })),
  renew: (leaseId: string, ttlS: number): Promise<Lease> =>
    ok(
      client.api.POST('/v0/leases/{lease_id}/renew', {
        params: { path: { lease_id: leaseId } },
        body: { ttl_s: ttlS },
      }),
    ),
  /** The ended lease (`live: false`). */
  release: (leaseId: string): Promise<Lease> =>
    ok(client.api.DELETE('/v0/leases/{lease_id}', { params: { path: { lease_id: leaseId } } })),
  /** The live leases covering `path` (all live leases without it). */
  list: async (path?: string): Promise<Lease[]> =>
    (await ok(client.api.GET('/v0/leases', { params: { query: { path } } }))).items,
});
