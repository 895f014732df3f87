import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll } from 'vitest';

/** A webhook receiver: a real HTTP server on 127.0.0.1 that records every POST and answers as told. */
export interface Received {
  headers: IncomingHttpHeaders;
  raw: string;
  body: any;
  at: number;
}

export interface Receiver {
  url: string;
  received: Received[];
  /** The status for a request (default 200); 'hang' never answers; `{status, afterMs}` answers late. */
  answer: (r: Received) => number | 'hang' | { status: number; afterMs: number };
  /** Resolves once `done(received)` holds. */
  until(done: (received: Received[]) => boolean, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const waiters = new Set<() => void>();
  const hanging = new Set<import('node:http').ServerResponse>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const r: Received = { headers: req.headers, raw, body: JSON.parse(raw), at: performance.now() };
      receiver.received.push(r);
      const status = receiver.answer(r);
      const reply = (code: number) => res.writeHead(code).end(code < 300 ? 'ok' : 'nope: internal page');
      if (status === 'hang') hanging.add(res);
      else if (typeof status === 'object') {
        hanging.add(res);
        setTimeout(() => (hanging.delete(res), reply(status.status)), status.afterMs);
      } else reply(status);
      for (const w of [...waiters]) w();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const receiver: Receiver = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received: [],
    answer: () => 200,
    until: (done, timeoutMs = 120_000) =>
      new Promise((resolve, reject) => {
        const check = () => {
          if (!done(receiver.received)) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(receiver.received);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`receiver: timed out with ${receiver.received.length} deliveries`));
        }, timeoutMs);
        waiters.add(check);
        check();
      }),
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return receiver;
}

/** The v1= signatures of a delivery that verify with `secret` (HMAC-SHA256 of "<timestamp>.<raw body>"). */
export function verifies(r: Received, secret: string): boolean {
  const expected = createHmac('sha256', secret)
    .update(`${String(r.headers['x-drive-timestamp'])}.${r.raw}`)
    .digest('hex');
  return String(r.headers['x-drive-signature'])
    .split(',')
    .some((v) => v === `v1=${expected}`);
}

/** A suite's receivers: `receiver()` starts one on 127.0.0.1; all are closed after the suite. */
export function suiteReceivers(): () => Promise<Receiver> {
  const started: Receiver[] = [];
  afterAll(async () => {
    for (const r of started) await r.close();
  });
  return async () => {
    const r = await startReceiver();
    started.push(r);
    return r;
  };
}
