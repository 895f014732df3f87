import { createHmac } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { guardedLookup, refusedAddress, type AddressPolicy } from './webhook-address.js';

/** What one POST to a receiver came to (docs/decisions/feed.md, Webhooks → Delivery). */
export interface AttemptResult {
  ok: boolean;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

export interface SendOptions extends AddressPolicy {
  timeoutMs: number;
}

/** Response bytes read at most (an error answer's first KB is kept for the delivery log). */
const MAX_RESPONSE_BYTES = 64 * 1024;
const ERROR_EXCERPT_BYTES = 512;

/** `v1=<hex HMAC-SHA256 of "<timestamp>.<body>">`, one per live secret, newest first, comma-separated. */
export function signature(secrets: string[], timestamp: number, body: string): string {
  return secrets.map((s) => `v1=${createHmac('sha256', s).update(`${timestamp}.${body}`).digest('hex')}`).join(',');
}

// Kept-alive sockets to receivers: a burst of deliveries to one URL reuses its connection.
const agents = {
  'http:': new http.Agent({ keepAlive: true, maxSockets: 8 }),
  'https:': new https.Agent({ keepAlive: true, maxSockets: 8 }),
};

/**
 * POSTs `body` once. Never throws and never takes longer than `timeoutMs` (connection, answer and
 * reading it included): a slow receiver cannot hold the drainer. Any non-2xx answer, timeout or
 * refused address is a failure for the caller to retry.
 */
export function postOnce(
  url: string,
  headers: Record<string, string>,
  body: string,
  opts: SendOptions,
): Promise<AttemptResult> {
  const started = performance.now();
  const done = (ok: boolean, statusCode: number | null, error: string | null): AttemptResult => ({
    ok,
    statusCode,
    error,
    durationMs: Math.round(performance.now() - started),
  });
  return new Promise((resolve) => {
    const target = new URL(url);
    const host = target.hostname.replace(/^\[|\]$/g, '');
    const why = isIP(host) ? refusedAddress(host, opts) : null;
    if (why) return resolve(done(false, null, `refused: ${host} is ${why}`));
    const client = target.protocol === 'https:' ? https : http;
    let settled = false;
    const finish = (r: AttemptResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      resolve(r);
    };
    const req = client.request(target, {
      method: 'POST',
      agent: agents[target.protocol as 'http:' | 'https:'],
      lookup: guardedLookup(opts),
      headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
    });
    const deadline = setTimeout(() => {
      finish(done(false, null, `timed out after ${opts.timeoutMs} ms`));
      req.destroy();
    }, opts.timeoutMs);
    req.on('error', (err) => finish(done(false, null, err.message)));
    req.on('response', (res) => {
      const status = res.statusCode ?? 0;
      const ok = status >= 200 && status < 300;
      let read = 0;
      let excerpt = '';
      res.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (!ok && excerpt.length < ERROR_EXCERPT_BYTES) excerpt += chunk.toString('utf8', 0, ERROR_EXCERPT_BYTES);
        if (read > MAX_RESPONSE_BYTES) res.destroy();
      });
      const end = () =>
        finish(
          done(ok, status, ok ? null : `HTTP ${status}${excerpt ? `: ${excerpt.slice(0, ERROR_EXCERPT_BYTES)}` : ''}`),
        );
      res.on('end', end);
      res.on('close', end);
      res.on('error', end);
    });
    req.end(body);
  });
}
