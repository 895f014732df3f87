import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { purgeUnreferencedBlobs } from '../../src/files/blobs.js';
import { closeUploadSession, markExpired } from '../../src/uploads/upload-sessions.js';
import { reservedBytes } from '../../src/files/quota.js';
import { uploadWorkflowId } from '../../src/temporal/upload-messages.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { bytes, sha256, uploadClient, waitFor, type UploadClient } from './helpers.js';

// `short` runs 3-second sessions whose workflow timer fires during the test; `long` keeps the default hour,
// so only the test decides when a session expires.
let short: TestApi;
let long: TestApi;
beforeAll(async () => {
  [short, long] = await Promise.all([startTestApi({ UPLOAD_SESSION_TTL_S: '3' }), startTestApi()]);
});
afterAll(async () => Promise.all([short?.close(), long?.close()]));

const workflowResult = (api: TestApi, uploadId: string) =>
  api.ctx.temporal.workflow.getHandle(uploadWorkflowId(uploadId)).result();
const db = (api: TestApi) => api.ctx.orm.em.fork();

async function begun(u: UploadClient, path: string, n = 2048) {
  const data = bytes(n);
  const b = (await u.begin({ path, size_bytes: n })).json;
  expect(await u.putToUrl(b, data)).toBe(200);
  return { id: b.upload_id as string, data };
}

describe('session expiry (the workflow timer)', () => {
  it('expires a begun session: deletes the object, releases the reservation, commit answers 410', async () => {
    const u = await uploadClient(short);
    const { id } = await begun(u, 'exp/a.bin');
    expect(await reservedBytes(db(short), u.driveId)).toBe(2048);
    expect(await workflowResult(short, id)).toEqual({ state: 'expired', expiredNow: true });
    expect((await u.session(id))!.state).toBe('expired');
    expect(await u.objectExists(id)).toBe(false);
    expect(await reservedBytes(db(short), u.driveId)).toBe(0);
    for (let i = 0; i < 2; i++) {
      const c = await u.commit(id);
      expect([c.status, c.code]).toEqual([410, 'UPLOAD_EXPIRED']);
    }
    expect(await u.artifactsAt('exp/a.bin')).toBe(0);
  });

  it('an expired session whose object is already gone from S3 (or was never uploaded) closes cleanly and answers 410', async () => {
    const u = await uploadClient(short);
    const { id } = await begun(u, 'exp/gone.bin');
    await u.deleteObjectDirect(id);
    const never = (await u.begin({ path: 'exp/never.bin', size_bytes: 10 })).json.upload_id;
    expect(await workflowResult(short, id)).toEqual({ state: 'expired', expiredNow: true });
    expect(await workflowResult(short, never)).toEqual({ state: 'expired', expiredNow: true });
    expect((await u.commit(id)).status).toBe(410);
    expect((await u.commit(never)).status).toBe(410);
  });

  it('a commit that finds the session past expires_at (timer late) expires it itself', async () => {
    const u = await uploadClient(long);
    const { id } = await begun(u, 'exp/late.bin');
    await db(long).execute(`update upload_sessions set expires_at = now() - interval '1 second' where id = ?`, [id]);
    expect(await reservedBytes(db(long), u.driveId)).toBe(0);
    const c = await u.commit(id);
    expect([c.status, c.code]).toEqual([410, 'UPLOAD_EXPIRED']);
    expect((await u.session(id))!.state).toBe('expired');
    expect(await u.objectExists(id)).toBe(false);
    expect(await u.artifactsAt('exp/late.bin')).toBe(0);
  });
});

describe('commit racing expiry', () => {
  it('commit wins: the workflow ends early on the signal and a later expiry changes nothing', async () => {
    const u = await uploadClient(long);
    const { id, data } = await begun(u, 'race/commit-first.bin');
    expect((await long.ctx.temporal.workflow.getHandle(uploadWorkflowId(id)).describe()).status.name).toBe('RUNNING');
    const c = await u.commit(id);
    expect(c.status).toBe(200);
    expect(await workflowResult(long, id)).toEqual({ state: 'committed', expiredNow: false });
    expect(await closeUploadSession(long.ctx, { uploadId: id, driveId: u.driveId, expire: true })).toEqual({
      state: 'committed',
      expiredNow: false,
    });
    expect((await u.commit(id)).json).toEqual(c.json);
    expect((await u.get(`/v0/artifacts/${c.json.art_id}/download`)).bytes.equals(Buffer.from(data))).toBe(true);
  });

  it('expiry wins while the commit waits for the session row: 410, no artifact, no event, and the copied blob is only garbage', async () => {
    const u = await uploadClient(long);
    const { id, data } = await begun(u, 'race/expiry-first.bin');
    let commit: ReturnType<UploadClient['commit']> | undefined;
    await db(long).transactional(async (tx) => {
      await tx.execute(`select id from upload_sessions where id = ? for update`, [id]);
      commit = u.commit(id);
      await waitFor(
        async () =>
          Number(
            (
              await db(long).execute(
                `select count(*) as n from pg_stat_activity where wait_event_type = 'Lock' and query like '%upload_sessions%'`,
              )
            )[0].n,
          ) > 0,
      );
      expect(await markExpired(tx, id)).toBe(true);
    });
    const c = await commit!;
    expect([c.status, c.code]).toEqual([410, 'UPLOAD_EXPIRED']);
    expect(await u.artifactsAt('race/expiry-first.bin')).toBe(0);
    expect(await u.events()).toHaveLength(0);
    expect(await u.objectExists(id)).toBe(false);
    // The commit had already copied the bytes to their blob key; nothing references it, so the purge takes it.
    const hash = sha256(data);
    expect(
      await db(long).execute(
        `select 1 from blobs b where hash = ? and not exists (select 1 from artifact_versions v where v.hash = b.hash)`,
        [hash],
      ),
    ).toHaveLength(1);
    await purgeUnreferencedBlobs(long.ctx, 0);
    expect(await db(long).execute(`select 1 from blobs where hash = ?`, [hash])).toHaveLength(0);
  });

  it('started together, exactly one of commit and expiry wins each time and nothing leaks', async () => {
    const u = await uploadClient(long);
    const outcomes: string[] = [];
    for (let i = 0; i < 8; i++) {
      const path = `race/both-${i}.bin`;
      const { id } = await begun(u, path, 1024);
      const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));
      const [c, closed] = await Promise.all([
        u.commit(id),
        delay(i * 15).then(() => closeUploadSession(long.ctx, { uploadId: id, driveId: u.driveId, expire: true })),
      ]);
      const session = (await u.session(id))!;
      if (c.status === 200) {
        expect(closed.expiredNow).toBe(false);
        expect(session.state).toBe('committed');
        expect(await u.artifactsAt(path)).toBe(1);
        outcomes.push('commit');
      } else {
        expect([c.status, c.code]).toEqual([410, 'UPLOAD_EXPIRED']);
        expect(closed.expiredNow).toBe(true);
        expect(session.state).toBe('expired');
        expect(await u.artifactsAt(path)).toBe(0);
        outcomes.push('expiry');
      }
      expect(await u.objectExists(id)).toBe(false);
    }
    expect(await reservedBytes(db(long), u.driveId)).toBe(0);
    const events = await u.events('?limit=200');
    expect(events.filter((e) => e.action === 'artifact.created')).toHaveLength(
      outcomes.filter((o) => o === 'commit').length,
    );
  });
});
