import { describe, expect, it } from 'vitest';
import type { TestApi } from '../helpers/api.js';
import { driveClient, useTestApi } from '../artifacts/client.js';

/**
 * The one-statement PUT against a grant in flight (issue 56): the grant holds the drive's lease lock and has written
 * its lease but not committed when the PUT arrives. The PUT's statement asks lease_gate, which waits on that lock and
 * then reads the committed lease with a fresh snapshot: the PUT takes the checked path and is refused. Before the
 * gate, the PUT's lookup ran before the commit, found nothing and wrote past the lease.
 */
let api: TestApi;
useTestApi({}, (a) => {
  api = a;
});

describe('plain PUT racing a lease grant', () => {
  it('waits for the grant in flight and is then refused (423 LOCKED); nothing is written', async () => {
    const d = await driveClient(api);
    expect((await d.put('race/doc.md', 'v1')).status).toBe(200);
    let put: Promise<{ status: number; code?: string }> | undefined;
    let settledBeforeCommit = false;
    await api.ctx.orm.em.fork().transactional(async (tx) => {
      await tx.execute(`select pg_advisory_xact_lock(hashtextextended(?, 0))`, [`lease:${d.driveId}`]);
      await tx.execute(
        `insert into leases (id, drive_id, fence, mode, paths, holder_credential, holder_kind, expires_at)
         values ('lse_race', ?, 1000000, 'exclusive', '{race/doc.md}', 'other', 'api_key',
                 clock_timestamp() + interval '1 minute')`,
        [d.driveId],
      );
      put = d.put('race/doc.md', 'blind write');
      void put.then(() => (settledBeforeCommit = true));
      // Long enough for the PUT to reach its statement; it must still be waiting on the grant's lock.
      await new Promise((r) => setTimeout(r, 750));
      expect(settledBeforeCommit).toBe(false);
    });
    const refused = await put!;
    expect(refused.status).toBe(423);
    expect(refused.code).toBe('LOCKED');
    const current = await d.call('GET', '/v0/artifacts/race/doc.md/meta');
    expect(current.json.version_number).toBe(1);
  });

  it('a PUT on a drive with no lease stays one statement and lands', async () => {
    const d = await driveClient(api);
    expect((await d.put('calm/doc.md', 'v1')).status).toBe(200);
    expect((await d.put('calm/doc.md', 'v2')).status).toBe(200);
    const current = await d.call('GET', '/v0/artifacts/calm/doc.md/meta');
    expect(current.json.version_number).toBe(2);
  });
});
