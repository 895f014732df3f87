import { describe, expect, it } from 'vitest';
import { purgeExpired } from '../../src/files/purge.js';
import { transitionFeedback } from '../../src/feedback/feedback.js';
import { readBlobBytes } from '../../src/files/blobs.js';
import type { TestApi } from '../helpers/api.js';
import { ageBlobs, driveClient, objectExistsIn, sqlOn, useTestApi, type DriveClient } from '../artifacts/client.js';

let api: TestApi;
let d: DriveClient;
useTestApi({}, (a, c) => {
  api = a;
  d = c;
});

const file = (body: unknown) => d.call('POST', '/v0/feedback', { json: body });

describe('feedback tickets', () => {
  it('missing kind, title or body is 422; an unknown attachment is 404', async () => {
    const full = { kind: 'bug', title: 'Broken thing', body: 'It broke.' };
    for (const field of ['kind', 'title', 'body'] as const) {
      const { [field]: _omit, ...rest } = full;
      const r = await file(rest);
      expect(r.status).toBe(422);
      expect(r.json.detail).toContainEqual(expect.objectContaining({ loc: ['body', field] }));
    }
    expect((await file({ ...full, title: '   ' })).status).toBe(422);
    expect((await file({ ...full, attachments: ['art_00000000000000000000000000'] })).code).toBe('ARTIFACT_NOT_FOUND');
  });

  it('201 with an fbk_ id and status received; another drive reads 404 like an absent ticket', async () => {
    const r = await file({ kind: 'feature', title: 'More engines', body: 'Please add ConTeXt.', contact: true });
    expect(r.status).toBe(201);
    expect(r.json).toMatchObject({
      kind: 'feature',
      title: 'More engines',
      body: 'Please add ConTeXt.',
      contact: true,
      status: 'received',
      attachments: [],
    });
    expect(r.json.fbk_id).toMatch(/^fbk_[0-9a-z]{26}$/);
    expect((await d.get(`/v0/feedback/${r.json.fbk_id}`)).json).toEqual(r.json);
    const other = await driveClient(api);
    const cross = await other.get(`/v0/feedback/${r.json.fbk_id}`);
    const absent = await other.get('/v0/feedback/fbk_00000000000000000000000000');
    expect([cross.status, cross.code]).toEqual([404, 'FEEDBACK_NOT_FOUND']);
    expect([absent.status, absent.code]).toEqual([404, 'FEEDBACK_NOT_FOUND']);
    expect(cross.json).toEqual({ detail: { error: { ...absent.json.detail.error } } });
    // Another drive cannot attach this drive's artifacts either.
    const mine = await d.put('fb/private.txt', 'mine');
    expect(
      (
        await other.call('POST', '/v0/feedback', {
          json: { kind: 'bug', title: 't', body: 'b', attachments: [mine.json.art_id] },
        })
      ).code,
    ).toBe('ARTIFACT_NOT_FOUND');
  });

  it('an attachment snapshot survives an overwrite, a delete and a purge of the artifact', async () => {
    const a = await d.put('fb/screenshot.txt', 'original bytes of the report', { 'content-type': 'text/plain' });
    const r = await file({ kind: 'bug', title: 'With attachment', body: 'see attached', attachments: [a.json.art_id] });
    expect(r.status).toBe(201);
    const snap = r.json.attachments[0];
    expect(snap).toMatchObject({
      art_id: a.json.art_id,
      path: 'fb/screenshot.txt',
      version_number: 1,
      hash: a.json.hash,
      content_type: 'text/plain',
      size_bytes: 28,
    });

    await d.put('fb/screenshot.txt', 'overwritten later');
    const del = await d.call('DELETE', '/v0/artifacts/fb/screenshot.txt');
    expect(del.status).toBe(200);
    await sqlOn(api, `update artifacts set purge_at = now() - interval '1 second' where id = ?`, [a.json.art_id]);
    await purgeExpired(api.ctx);
    await ageBlobs(api, [a.json.hash]);
    await purgeExpired(api.ctx);
    expect((await d.get(`/v0/artifacts/${a.json.art_id}`)).status).toBe(404);
    expect(await sqlOn(api, `select 1 from artifact_versions where art_id = ?`, [a.json.art_id])).toEqual([]);

    const after = await d.get(`/v0/feedback/${r.json.fbk_id}`);
    expect(after.json.attachments).toEqual([snap]);
    expect(await objectExistsIn(api, snap.hash)).toBe(true);
    expect((await readBlobBytes(api.ctx, snap.hash)).toString()).toBe('original bytes of the report');
  });

  it('operators move the status along the lifecycle; same status is a no-op; a skipped step is 409 with current_status', async () => {
    const { fbk_id } = (await file({ kind: 'question', title: 'How?', body: 'How does this work?' })).json;
    const t1 = await transitionFeedback(api.ctx, { fbkId: fbk_id, to: 'triaged', operator: 'ops' });
    expect([t1.ticket.status, t1.changed]).toEqual(['triaged', true]);
    const same = await transitionFeedback(api.ctx, { fbkId: fbk_id, to: 'triaged', operator: 'ops' });
    expect(same.changed).toBe(false);
    await transitionFeedback(api.ctx, { fbkId: fbk_id, to: 'in_progress', operator: 'ops' });
    expect((await d.get(`/v0/feedback/${fbk_id}`)).json.status).toBe('in_progress');
    await transitionFeedback(api.ctx, { fbkId: fbk_id, to: 'resolved', operator: 'ops', note: 'answered' });
    await expect(transitionFeedback(api.ctx, { fbkId: fbk_id, to: 'received', operator: 'ops' })).rejects.toMatchObject(
      {
        code: 'FEEDBACK_TRANSITION_INVALID',
        extra: { current_status: 'resolved' },
      },
    );
    expect((await d.get(`/v0/feedback/${fbk_id}`)).json.status).toBe('resolved');
    const history = await sqlOn(
      api,
      `select from_status, to_status from feedback_transitions where fbk_id = ? order by created_at`,
      [fbk_id],
    );
    expect(history).toEqual([
      { from_status: 'received', to_status: 'triaged' },
      { from_status: 'triaged', to_status: 'in_progress' },
      { from_status: 'in_progress', to_status: 'resolved' },
    ]);
    // No route changes a status with a drive credential.
    expect((await d.call('POST', `/v0/feedback/${fbk_id}/transition`, { json: { status: 'declined' } })).status).toBe(
      404,
    );
  });
});
