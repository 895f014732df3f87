import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  allItems,
  DriveClient,
  DriveError,
  ok,
  uploadBytes,
  type Registration,
  type TokenUpdate,
} from '../../packages/client/src/index.js';
import { startTestApi, type TestApi } from '../helpers/api.js';

/** The SDK on its own against the test stack: credentials, paging, the typed error (issue 30). */
let api: TestApi;
let registration: Registration;
beforeAll(async () => {
  // Registrations from 127.0.0.1 are counted across the whole suite: this file's logins must not meet the per-IP limit.
  api = await startTestApi({ REGISTRATIONS_PER_IP_PER_HOUR: '100000' });
  registration = await ok(
    new DriveClient({ baseUrl: api.url }).api.POST('/agent/identity', { body: { type: 'anonymous' } }),
  );
});
afterAll(async () => api?.close());

describe('credentials', () => {
  it('an access token with less than a minute left is renewed before use', async () => {
    const updates: TokenUpdate[] = [];
    const client = new DriveClient({
      baseUrl: api.url,
      credential: {
        identityAssertion: registration.identity_assertion,
        accessToken: 'about-to-expire',
        accessTokenExpiresAt: Date.now() + 30_000,
      },
      onTokenUpdate: (u) => updates.push(u),
    });
    const me = await ok(client.api.GET('/v0/drives/me'));
    expect(me.drive_id).toBe(registration.drive_id);
    expect(updates).toHaveLength(1);
    expect(updates[0]!.accessTokenExpiresAt).toBeGreaterThan(Date.now() + 14 * 60_000);
    // The renewed token is reused, not exchanged again.
    await ok(client.api.GET('/v0/drives/me'));
    expect(updates).toHaveLength(1);
  });

  it('a token the server refuses is exchanged again once and the request succeeds', async () => {
    const updates: TokenUpdate[] = [];
    const client = new DriveClient({
      baseUrl: api.url,
      credential: {
        identityAssertion: registration.identity_assertion,
        accessToken: 'not-a-token',
        accessTokenExpiresAt: Date.now() + 10 * 60_000,
      },
      onTokenUpdate: (u) => updates.push(u),
    });
    expect((await ok(client.api.GET('/v0/drives/me'))).drive_id).toBe(registration.drive_id);
    expect(updates).toHaveLength(1);
  });

  it('a revoked or unknown assertion is a DriveError invalid_grant', async () => {
    const client = new DriveClient({ baseUrl: api.url, credential: { identityAssertion: 'not.a.jwt' } });
    const err = await ok(client.api.GET('/v0/drives/me')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DriveError);
    expect(err).toMatchObject({ status: 400, code: 'invalid_grant' });
  });
});

describe('paging and errors', () => {
  it('allItems follows next_cursor to the last page', async () => {
    const client = new DriveClient({
      baseUrl: api.url,
      credential: { identityAssertion: registration.identity_assertion },
    });
    for (const n of [1, 2, 3, 4, 5]) await uploadBytes(client, `paged/${n}.txt`, Buffer.from(`${n}`));
    const items = await allItems((cursor) =>
      ok(client.api.GET('/v0/artifacts', { params: { query: { prefix: 'paged/', cursor, limit: 2 } } })),
    );
    expect(items.map((a) => a.path)).toEqual([
      'paged/1.txt',
      'paged/2.txt',
      'paged/3.txt',
      'paged/4.txt',
      'paged/5.txt',
    ]);
  });

  it("a refused request is a DriveError carrying the spec's code", async () => {
    const client = new DriveClient({
      baseUrl: api.url,
      credential: { identityAssertion: registration.identity_assertion },
    });
    const a = await uploadBytes(client, 'errs/a.txt', Buffer.from('a'));
    await uploadBytes(client, 'errs/b.txt', Buffer.from('b'));
    const err = await ok(
      client.api.PATCH('/v0/artifacts/{art_id}', {
        params: { path: { art_id: a.art_id } },
        body: { path: 'errs/b.txt' },
      }),
    ).catch((e: unknown) => e);
    expect(err).toMatchObject({ name: 'DriveError', status: 409, code: 'PATH_CONFLICT' });
  });
});
