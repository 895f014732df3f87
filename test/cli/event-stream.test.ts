import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DriveClient, followEvents, type EventOut } from '../../packages/client/src/index.js';

/**
 * The SDK's side of the change stream (issue 28's `GET /v0/events/stream`, built on another branch): an SSE
 * server on 127.0.0.1 that speaks that interface drops the first connection after two events; the client
 * reconnects with Last-Event-ID and gets the rest with no gap and no repeat. (Against the test stack, which
 * has no stream yet, follow-sync-retry.test.ts covers the polling fallback.)
 */
let server: Server;
const lastEventIds: (string | undefined)[] = [];
const event = (seq: number) =>
  ({
    id: `evt_${seq}`,
    seq,
    drive_id: 'drv_x',
    art_id: `art_${seq}`,
    fld_id: null,
    action: 'artifact.created',
    actor_name: null,
    metadata: { path: `p/${seq}.txt` },
    created_at: new Date(0).toISOString(),
    run_id: null,
  }) satisfies EventOut;
const message = (seq: number) => `id: ${seq}\nevent: artifact.created\ndata: ${JSON.stringify(event(seq))}\n\n`;

beforeAll(async () => {
  server = createServer((req, res) => {
    if (!req.url?.startsWith('/v0/events/stream')) return res.writeHead(404).end();
    const after = req.headers['last-event-id'] as string | undefined;
    lastEventIds.push(after);
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.write(': keep-alive\n\n');
    if (after === undefined) {
      res.write(message(1) + message(2));
      // A dropped connection (a deploy, a proxy's idle timeout).
      setTimeout(() => res.destroy(), 50);
    } else {
      for (let seq = Number(after) + 1; seq <= 3; seq++) res.write(message(seq));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
});
afterAll(() => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))));

describe('followEvents over SSE', () => {
  it('resumes with Last-Event-ID after a drop: every event once, in order', async () => {
    const client = new DriveClient({
      baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      credential: { apiKey: 'ad_live_test' },
    });
    const stop = new AbortController();
    const transports: string[] = [];
    const seen: number[] = [];
    for await (const e of followEvents(client, { signal: stop.signal, onTransport: (t) => transports.push(t) })) {
      seen.push(e.seq!);
      if (seen.length === 3) stop.abort();
    }
    expect(seen).toEqual([1, 2, 3]);
    expect(lastEventIds).toEqual([undefined, '2']);
    expect(transports).toEqual(['stream', 'stream']);
  });
});
