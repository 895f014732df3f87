import { createHmac } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { guardedLookup, portRefused, refusedAddress, type AddressPolicy } from './webhook-address.js';

/** What one POST to a receiver came to (docs/decisions/feed.md, Webhooks → Delivery). */
export interface AttemptResult {
  ok: boolean;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

export interface SendOptions extends AddressPolicy {
  timeoutMs: number;
  /** Ends the attempt at once (the drain activity was cancelled). */
  signal?: AbortSignal;
}

/**
 * Response bytes read at most. None of them is kept: the log holds the status and a reason of our own words, so
 * a receiver's error page (a loopback service's, in development) is never shown to the webhook's owner.
 */
const MAX_RESPONSE_BYTES = 64 * 1024;

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
    if (why) return resolve(done(false, null, `refused: the address is ${why}`));
    const port = portRefused(target, opts);
    if (port) return resolve(done(false, null, `refused: ${port}`));
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
    const onAbort = () => {
      finish(done(false, null, 'cancelled'));
      req.destroy();
    };
    if (opts.signal?.aborted) onAbort();
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    req.on('close', () => opts.signal?.removeEventListener('abort', onAbort));
    req.on('error', (err) => finish(done(false, null, connectionError(err))));
    req.on('response', (res) => {
      const status = res.statusCode ?? 0;
      const ok = status >= 200 && status < 300;
      let read = 0;
      res.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read > MAX_RESPONSE_BYTES) res.destroy();
      });
      const end = () => finish(done(ok, status, ok ? null : `HTTP ${status}`));
      res.on('end', end);
      res.on('close', end);
      res.on('error', end);
    });
    req.end(body);
  });
}

/** A connection failure in words of our own: never the resolved address or a system message that names it. */
function connectionError(err: Error & { code?: string }): string {
  if (err.message.includes('refused:')) return err.message.slice(err.message.indexOf('refused:'));
  switch (err.code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'host does not resolve';
    case 'ECONNRESET':
      return 'connection reset';
    case 'ETIMEDOUT':
      return 'connection timed out';
    default:
      return err.code ? `connection failed (${err.code})` : 'connection failed';
  }
}
