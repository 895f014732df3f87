import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import type { TestApi } from '../helpers/api.js';

/**
 * The outside of an OAuth sign-in, as real servers on 127.0.0.1: the native client's loopback callback, and a host
 * publishing client ID metadata documents (the test stack allows http to loopback for them).
 */
async function listen(server: Server, host = '127.0.0.1'): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return `http://${host.includes(':') ? `[${host}]` : host}:${(server.address() as AddressInfo).port}`;
}

const closeServer = (server: Server) =>
  new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });

export interface Callback {
  /** http://127.0.0.1:<port>/callback (or [::1]) */
  url: string;
  /** The query of the next request the browser brings to the callback. */
  next(): Promise<URLSearchParams>;
  close(): Promise<void>;
}

/** A native client's loopback redirect URI: answers a short page and hands the query to the test. */
export async function startCallback(host = '127.0.0.1'): Promise<Callback> {
  const arrived: URLSearchParams[] = [];
  let wake: (() => void) | undefined;
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname !== '/callback') return res.writeHead(404).end(); // the browser's /favicon.ico
    arrived.push(url.searchParams);
    wake?.();
    res.writeHead(200, { 'content-type': 'text/html' }).end('<p>Signed in. You can close this window.</p>');
  });
  const base = await listen(server, host);
  return {
    url: `${base}/callback`,
    async next() {
      while (!arrived.length) await new Promise<void>((r) => (wake = r));
      return arrived.shift()!;
    },
    close: () => closeServer(server),
  };
}

export interface Published {
  status?: number;
  headers?: Record<string, string>;
  /** A JSON document (serialized here) or a raw body. */
  body: unknown;
  /** Sent in pieces without Content-Length (chunked). */
  chunked?: boolean;
}

export interface MetadataHost {
  base: string;
  /** Publishes at `path`; returns the document's URL (the client_id). */
  publish(path: string, answer: (url: string) => Published): string;
  /** GETs the host received for `path`. */
  hits(path: string): number;
  lastHeaders(path: string): IncomingHttpHeaders | undefined;
  close(): Promise<void>;
}

export async function startMetadataHost(): Promise<MetadataHost> {
  const answers = new Map<string, (url: string) => Published>();
  const hits = new Map<string, number>();
  const headersSeen = new Map<string, IncomingHttpHeaders>();
  let base = '';
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    headersSeen.set(path, req.headers);
    const answer = answers.get(path);
    if (!answer) return res.writeHead(404).end('not found');
    const a = answer(`${base}${path}`);
    const body = typeof a.body === 'string' ? a.body : JSON.stringify(a.body);
    res.writeHead(a.status ?? 200, { 'content-type': 'application/json', ...a.headers });
    if (!a.chunked) return res.end(body);
    const half = Math.floor(body.length / 2);
    res.write(body.slice(0, half));
    res.end(body.slice(half));
  });
  base = await listen(server);
  return {
    base,
    publish(path, answer) {
      answers.set(path, answer);
      return `${base}${path}`;
    },
    hits: (path) => hits.get(path) ?? 0,
    lastHeaders: (path) => headersSeen.get(path),
    close: () => closeServer(server),
  };
}

/** A client of the SDK's v2 line (`@modelcontextprotocol/client`) with a bearer token, pinned to 2026-07-28. */
export async function mcpClientV2(api: TestApi, token: string) {
  const client = new ClientV2(
    { name: 'drive-test-v2', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await client.connect(
    new TransportV2(new URL(`${api.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
  );
  return client;
}
