import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApi } from '../helpers/api.js';
import { hideDrive, removeDrive } from '../../src/drives/drive-lifecycle.js';
import { createDrive } from '../../src/drives/drives.js';
import { unclaimedDriveWorkflowId } from '../../src/temporal/identity-messages.js';
import { accessTokenFor, bearer, registerAnonymous, startIdentityApi, JWT_BEARER, tokenRequest } from './helpers.js';

let api: TestApi;
beforeAll(async () => {
  api = await startIdentityApi();
});
afterAll(async () => api?.close());

async function driveRow(driveId: string) {
  const rows = await api.ctx.orm.em.fork().execute('select id, deleted_at from drives where id = ?', [driveId]);
  return rows[0] as { id: string; deleted_at: Date | null } | undefined;
}

describe('unclaimed-drive lifecycle (durations shortened through config)', () => {
  it('removes a drive after the inactivity window; token exchanges reset the clock', async () => {
    const shortApi = await startIdentityApi({
      UNCLAIMED_INACTIVITY_S: '6',
      UNCLAIMED_MAX_AGE_S: '3600',
      PUBLIC_BASE_URL: api.url,
    });
    try {
      const reg = await registerAnonymous(shortApi);
      // Keep it active for longer than one window: it must survive.
      for (let i = 0; i < 6; i++) {
        await new Promise((r) => setTimeout(r, 1500));
        await accessTokenFor(api, reg.identity_assertion);
      }
      expect(await driveRow(reg.drive_id)).toBeDefined();
      const access = await accessTokenFor(api, reg.identity_assertion);

      // Then idle: removed (the workflow reports why), and every credential stops working.
      const handle = api.ctx.temporal.workflow.getHandle(unclaimedDriveWorkflowId(reg.drive_id));
      expect(await handle.result()).toBe('removed_inactive');
      expect(await driveRow(reg.drive_id)).toBeUndefined();
      const rows = await api.ctx.orm.em
        .fork()
        .execute('select count(*) as n from agent_identities where drive_id = ?', [reg.drive_id]);
      expect(Number(rows[0].n)).toBe(0);
      expect((await fetch(`${api.url}/v0/drives/me`, { headers: bearer(access) })).status).toBe(401);
      const res = await tokenRequest(api, { grant_type: JWT_BEARER, assertion: reg.identity_assertion });
      expect(await res.json()).toEqual({ error: 'invalid_grant', error_description: expect.stringMatching(/gone/) });
      const claim = await tokenRequest(api, { grant_type: 'claim', claim_token: reg.claim_token });
      expect((await claim.json()).error_description).toMatch(/gone/);
    } finally {
      await shortApi.close();
    }
  });

  it('removes a drive at its maximum age even while it is active', async () => {
    const shortApi = await startIdentityApi({
      UNCLAIMED_INACTIVITY_S: '3600',
      UNCLAIMED_MAX_AGE_S: '4',
      PUBLIC_BASE_URL: api.url,
    });
    try {
      const reg = await registerAnonymous(shortApi);
      const handle = api.ctx.temporal.workflow.getHandle(unclaimedDriveWorkflowId(reg.drive_id));
      const ticker = setInterval(() => void accessTokenFor(api, reg.identity_assertion).catch(() => {}), 1000);
      try {
        expect(await handle.result()).toBe('removed_max_age');
      } finally {
        clearInterval(ticker);
      }
      expect(await driveRow(reg.drive_id)).toBeUndefined();
    } finally {
      await shortApi.close();
    }
  });

  it('removeDrive hides a drive at once and then purges it (cascading to its rows)', async () => {
    const em = api.ctx.orm.em.fork();
    const drive = await createDrive(em, { ownerEmail: 'x@example.test' });
    await em.execute(
      `insert into usage_counters (drive_id, month, kind, count) values (?, date '2026-11-01', 'reads', 1)`,
      [drive.id],
    );
    expect(await hideDrive(em, drive.id)).toBe(true);
    expect((await driveRow(drive.id))?.deleted_at).not.toBeNull();
    expect(await hideDrive(em, drive.id)).toBe(true); // idempotent
    await removeDrive(em, drive.id);
    expect(await driveRow(drive.id)).toBeUndefined();
    const rows = await em.execute('select count(*) as n from usage_counters where drive_id = ?', [drive.id]);
    expect(Number(rows[0].n)).toBe(0);
  });
});
