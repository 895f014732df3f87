import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { driveClient, type DriveClient } from '../artifacts/client.js';
import { openSse, type SseStream } from './sse-client.js';

// Two API processes' worth of apps (each its own context and pool): a stream never depends on who committed the write.
let a: TestApi;
let b: TestApi;
let onA: DriveClient;
let onB: DriveClient;
const open: SseStream[] = [];
beforeAll(async () => {
  [a, b] = await Promise.all([startTestApi({ FEED_KEEPALIVE_S: '1' }), startTestApi()]);
  onA = await driveClient(a);
  // The same drive and key, through the other app.
  onB = await driveClient(b, onA);
});
afterAll(async () => {
  for (const s of open) s.close();
  await Promise.all([a?.close(), b?.close()]);
});

const stream = async (api: TestApi, d: DriveClient, query = '', headers: Record<string, string> = {}) => {
  const s = await openSse(`${api.url}/v0/events/stream${query}`, { ...d.auth, ...headers });
  open.push(s);
  if (s.status === 200) await s.waitForComment(/^connected$/);
  return s;
};

describe('GET /v0/events/stream', () => {
  it('starts from now and sends each new event as id: seq, event: action, data: EventOut', async () => {
    await onA.put('before/a.md', 'old');
    const s = await stream(a, onA);
    expect(s.contentType).toMatch(/^text\/event-stream/);
    const put = (await onB.put('live/a.md', 'new')).json;
    const [m] = await s.waitFor(1);
    const [latest] = await onA.events('?limit=1');
    expect(m).toEqual({ id: String(latest.seq), event: 'artifact.created', data: latest });
    expect(m!.data).toMatchObject({ art_id: put.art_id, action: 'artifact.created' });
    expect(s.messages).toHaveLength(1);
  });

  it('resumes by Last-Event-ID on another API process without gaps or repeats', async () => {
    const c = await driveClient(a);
    const cb = await driveClient(b, c);
    const first = await stream(a, c, '?after=0');
    for (let i = 0; i < 3; i++) await cb.put(`r/${i}.md`, 'x');
    await first.waitFor(3);
    first.close();
    const lastId = first.messages.at(-1)!.id;
    // Written while no stream is open, then resumed on the other process.
    for (let i = 3; i < 5; i++) await c.put(`r/${i}.md`, 'x');
    const second = await stream(b, c, '', { 'last-event-id': lastId });
    await c.put('r/5.md', 'x');
    await cb.put('r/6.md', 'x');
    await second.waitFor(4);
    expect(first.messages.map((m) => Number(m.id))).toEqual([1, 2, 3]);
    expect(second.messages.map((m) => Number(m.id))).toEqual([4, 5, 6, 7]);
    expect(second.messages.map((m) => m.data.metadata.path)).toEqual(['r/3.md', 'r/4.md', 'r/5.md', 'r/6.md']);
  });

  it('streams concurrent writes once each, in seq order', async () => {
    const c = await driveClient(a);
    const s = await stream(b, c, '?after=0');
    await Promise.all(Array.from({ length: 25 }, (_, i) => c.put(`burst/${i}.md`, String(i))));
    await s.waitFor(25);
    expect(s.messages.map((m) => Number(m.id))).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
  });

  it('applies the list filters (prefix, action) and resumes after ?after', async () => {
    const c = await driveClient(a);
    await c.put('keep/a.md', '1');
    await c.put('skip/b.md', '1');
    const s = await stream(a, c, '?after=0&prefix=keep/&action=artifact.updated');
    await c.put('keep/a.md', '2');
    await c.put('skip/b.md', '2');
    await c.put('keep/a.md', '3');
    await s.waitFor(2);
    expect(s.messages.map((m) => [Number(m.id), m.event, m.data.metadata.path])).toEqual([
      [3, 'artifact.updated', 'keep/a.md'],
      [5, 'artifact.updated', 'keep/a.md'],
    ]);
  });

  it('sends a keepalive comment while idle', async () => {
    const s = await stream(a, await driveClient(a));
    await s.waitForComment(/^keepalive$/, 10_000);
    expect(s.messages).toHaveLength(0);
  });

  it('ends a stream after FEED_STREAM_MAX_S; resuming from its last id misses nothing', async () => {
    const short = await startTestApi({ FEED_STREAM_MAX_S: '1' });
    try {
      const c = await driveClient(short);
      const s = await stream(short, c, '?after=0');
      await c.put('life/a.md', 'a');
      await s.waitFor(1);
      await s.ended;
      await c.put('life/b.md', 'b');
      const again = await stream(short, c, '', { 'last-event-id': s.messages.at(-1)!.id });
      await again.waitFor(1);
      expect([...s.messages, ...again.messages].map((m) => Number(m.id))).toEqual([1, 2]);
      again.close();
    } finally {
      await short.close();
    }
  });

  it('refuses a Last-Event-ID that is not a seq (422) and an unauthenticated stream (401)', async () => {
    expect((await openSse(`${a.url}/v0/events/stream`, { ...onA.auth, 'last-event-id': 'abc' })).status).toBe(422);
    expect((await openSse(`${a.url}/v0/events/stream`, {})).status).toBe(401);
  });
});
