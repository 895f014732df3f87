import { connect, type Socket } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { mintApiKey } from '../../src/identity/api-keys.js';
import { driveClient, type DriveClient } from '../artifacts/client.js';
import { openSse, type SseStream } from './sse-client.js';

/** Issue 37, findings 2 and 3: streams honour backpressure, replay a bounded catch-up, and are capped. */
let api: TestApi;
const streams: SseStream[] = [];
const sockets: Socket[] = [];
beforeAll(async () => {
  api = await startTestApi({
    FEED_STREAMS_PER_CREDENTIAL: '2',
    FEED_STREAMS_PER_DRIVE: '3',
    FEED_STREAMS_PER_ADDRESS: '4',
    FEED_CATCH_UP_MAX: '5',
    HTTP_MAX_CONNECTIONS: '40',
  });
});
afterAll(async () => {
  for (const s of streams) s.close();
  for (const s of sockets) s.destroy();
  await api.close();
});

const open = async (auth: Record<string, string>, query = '', headers: Record<string, string> = {}) => {
  const s = await openSse(`${api.url}/v0/events/stream${query}`, { ...auth, ...headers });
  streams.push(s);
  return s;
};
const refusal = async (auth: Record<string, string>, headers: Record<string, string> = {}) => {
  const r = await fetch(`${api.url}/v0/events/stream`, { headers: { ...auth, ...headers } });
  return { status: r.status, headers: r.headers, body: (await r.json()) as any };
};

describe('event streams: caps', () => {
  it('refuses the stream past the per-credential, per-drive and per-address caps with 429 and the rate headers', async () => {
    const d = await driveClient(api);
    const xff = { 'x-forwarded-for': '203.0.113.7' };
    for (let i = 0; i < 2; i++) expect((await open(d.auth, '', xff)).status).toBe(200);
    const byCredential = await refusal(d.auth, xff);
    expect(byCredential.status).toBe(429);
    expect(byCredential.body.detail.error).toMatchObject({ code: 'RATE_LIMITED' });
    expect(byCredential.body.detail.error.message).toMatch(/this credential/);
    expect(Number(byCredential.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(byCredential.headers.get('x-ratelimit-limit')).toBe('2');
    expect(byCredential.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(byCredential.headers.get('x-ratelimit-reset')).toMatch(/^\d+$/);

    // A second key of the same drive: one more stream fits the drive's cap of 3, the next does not.
    const { key } = await mintApiKey(api.ctx.orm.em.fork(), d.driveId, 'second');
    const second = { authorization: `Bearer ${key}` };
    expect((await open(second, '', xff)).status).toBe(200);
    const byDrive = await refusal(second, xff);
    expect([byDrive.status, byDrive.body.detail.error.message]).toEqual([429, expect.stringMatching(/this drive/)]);

    // Another drive from the same address: the address's fourth stream fits, its fifth does not.
    const other = await driveClient(api);
    expect((await open(other.auth, '', xff)).status).toBe(200);
    const byAddress = await refusal(other.auth, xff);
    expect([byAddress.status, byAddress.body.detail.error.message]).toEqual([
      429,
      expect.stringMatching(/client address/),
    ]);
    // From another address the same drive still streams.
    expect((await open(other.auth, '', { 'x-forwarded-for': '203.0.113.8' })).status).toBe(200);

    // A stream that ends gives its slot back.
    streams.splice(0, 1)[0]!.close();
    for (let i = 0; ; i++) {
      const s = await openSse(`${api.url}/v0/events/stream`, { ...d.auth, 'x-forwarded-for': '203.0.113.9' });
      streams.push(s);
      if (s.status === 200) break;
      expect(i).toBeLessThan(50);
      await new Promise((r) => setTimeout(r, 100));
    }
    for (const s of streams.splice(0)) s.close();
  });

  it('answers a connection past the server-wide limit 503 with Retry-After, not a reset', async () => {
    // The cap is 40 connections; hold them with idle sockets, then ask once more.
    const held = await Promise.all(
      Array.from(
        { length: 40 },
        () =>
          new Promise<Socket>((resolve) => {
            const s = connect(Number(new URL(api.url).port), '127.0.0.1', () => resolve(s));
          }),
      ),
    );
    sockets.push(...held);
    await new Promise((r) => setTimeout(r, 200));
    const answer = await new Promise<string>((resolve, reject) => {
      const s = connect(Number(new URL(api.url).port), '127.0.0.1', () =>
        s.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'),
      );
      let text = '';
      s.on('data', (c: Buffer) => (text += c.toString()));
      s.on('end', () => resolve(text));
      s.on('error', reject);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 503 /);
    expect(answer).toMatch(/\r\nRetry-After: \d+\r\n/i);
    expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)).detail.error.code).toBe('SERVICE_BUSY');
    for (const s of sockets.splice(0)) s.destroy();
    // Once they close, requests are served again.
    for (let i = 0; ; i++) {
      const r = await fetch(`${api.url}/healthz`).catch(() => null);
      if (r?.status === 200) break;
      expect(i).toBeLessThan(50);
      await new Promise((res) => setTimeout(res, 100));
    }
  });
});

describe('event streams: catch-up bound', () => {
  it('replays at most FEED_CATCH_UP_MAX events on one connection and points a larger gap to the list', async () => {
    const d = await driveClient(api);
    for (let i = 0; i < 8; i++) await d.put(`gap/${i}.md`, `${i}`);
    const r = await fetch(`${api.url}/v0/events/stream`, { headers: { ...d.auth, 'last-event-id': '0' } });
    const body = (await r.json()) as any;
    expect([r.status, body.detail.error.code]).toEqual([409, 'FEED_GAP_TOO_LARGE']);
    expect(body.detail.error).toMatchObject({ catch_up_url: '/v0/events?after=0', head: 8 });
    const near = await open(d.auth, '', { 'last-event-id': '3' });
    expect(near.status).toBe(200);
    expect((await near.waitFor(5)).map((m) => Number(m.id))).toEqual([4, 5, 6, 7, 8]);
    near.close();
  });
});

/** A stream whose client never reads: a raw socket that sends the request and then leaves its data unread. */
function pausedStream(d: DriveClient, after: number): Promise<Socket> {
  return new Promise((resolve) => {
    const s = connect(Number(new URL(memApi.url).port), '127.0.0.1', () => {
      s.write(
        `GET /v0/events/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${d.auth.authorization}\r\n` +
          `Last-Event-ID: ${after}\r\n\r\n`,
      );
      s.once('data', () => {
        s.pause();
        resolve(s);
      });
    });
    // Keep the receive window small, so the kernel cannot absorb what the server should hold back.
    s.setNoDelay(true);
  });
}

// A full garbage collection on demand, so the measure is what is held rather than what awaits collection.
setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;

let memApi: TestApi;
describe('event streams: backpressure', () => {
  beforeAll(async () => {
    memApi = await startTestApi({
      FEED_CATCH_UP_MAX: '100000',
      FEED_STREAMS_PER_CREDENTIAL: '100',
      FEED_STREAMS_PER_DRIVE: '100',
      FEED_STREAMS_PER_ADDRESS: '100',
      WRITE_BUDGET_PER_HOUR: '10000',
      WRITE_BUDGET_PER_DRIVE_PER_HOUR: '10000',
    });
  });
  afterAll(async () => {
    for (const s of sockets.splice(0)) s.destroy();
    await memApi.close();
  });

  it('paused streams over a long history hold the socket buffer, not the history (bound: 16 MB held for 40)', async () => {
    const d = await driveClient(memApi);
    // A history of about 3.5 MB: 300 files with long names, moved back and forth (one event per file per move).
    const dir = 'x'.repeat(100);
    expect((await d.call('POST', '/v0/folders/a', { json: {} })).status).toBe(201);
    for (let i = 0; i < 300; i += 20) {
      const puts = await Promise.all(
        Array.from({ length: 20 }, (_, j) => d.put(`a/${dir}/${'n'.repeat(140)}-${i + j}.md`, `${i + j}`)),
      );
      for (const r of puts) expect(r.status).toBeLessThan(300);
    }
    for (let i = 0; i < 14; i++) {
      const [from, to] = i % 2 ? ['b', 'a'] : ['a', 'b'];
      const r = await d.call('POST', `/v0/folders/${from}/move`, { json: { path: to } });
      expect(r.status).toBe(200);
    }
    const history = Buffer.byteLength(JSON.stringify(await allEvents(d)));
    expect(history).toBeGreaterThan(3_000_000);
    // Memory the process holds after a full collection (heap, buffers), and its RSS, before and after.
    const held = () => {
      collect();
      const m = process.memoryUsage();
      return { held: m.heapUsed + m.external, rss: m.rss };
    };
    const before = held();
    for (let i = 0; i < 40; i++) sockets.push(await pausedStream(d, 0));
    // Measured while the streams stall, long enough for an unbounded stream to have queued its history, and before
    // FEED_KEEPALIVE_S (15 s) cuts a stream that does not drain.
    await new Promise((r) => setTimeout(r, 8000));
    const after = held();
    const grown = after.held - before.held;
    console.log(
      `[sse] 40 paused streams over a ${history} byte history: held +${Math.round(grown / 1e6)} MB, ` +
        `RSS +${Math.round((after.rss - before.rss) / 1e6)} MB`,
    );
    // Each stream may hold its socket's buffer and one message (FEED_STREAM_BUFFER_BYTES at most) and the rest of its
    // catch-up page (50 events): 40 × 400 KB.
    // Without backpressure every stream queued what the kernel's socket buffers did not take (48 MB here, 40 × the
    // 4.8 MB history on a link whose buffers are smaller than loopback's).
    expect(grown).toBeLessThan(16 * 1024 * 1024);
  }, 180_000);
});

async function allEvents(d: DriveClient) {
  const out: unknown[] = [];
  for (let after = 0; ;) {
    const page = await d.events(`?after=${after}&limit=200`);
    if (!page.length) return out;
    out.push(...page);
    after = page[page.length - 1].seq;
  }
}
