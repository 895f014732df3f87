import { createHash } from 'node:crypto';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A deterministic OpenAI-compatible embeddings server on 127.0.0.1 for tests (and the out-of-process
 * checks: scripts/topology.ts). A text's vector is a hashed bag of words, after mapping a few
 * synonyms onto one concept, so "automobile" lands near "car" (semantic match without a shared
 * word) while unrelated texts stay apart. It can be stopped and started again on the same port to
 * simulate a provider outage, accept several API keys (to tell callers apart), and hold a request
 * unanswered (to kill its caller while the request is in flight). It can also be slow (`delayPerInputMs`: a CPU
 * provider working through one request at a time) and refuse batches above `maxBatch` with 413.
 */
const CONCEPTS: Record<string, string> = {
  automobile: 'car',
  vehicle: 'car',
  cars: 'car',
  sedan: 'car',
  feline: 'cat',
  kitten: 'cat',
  cats: 'cat',
  physician: 'doctor',
  medic: 'doctor',
  doctors: 'doctor',
};

export function deterministicVector(text: string, dimensions: number): number[] {
  const v = new Array<number>(dimensions).fill(0);
  for (const raw of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
    // Own keys only: a text may say `constructor`.
    const word = Object.hasOwn(CONCEPTS, raw) ? CONCEPTS[raw]! : raw;
    const h = createHash('sha256').update(word).digest();
    v[h.readUInt32BE(0) % dimensions]! += h[4]! & 1 ? 1 : -1;
  }
  return v;
}

/** An answered embeddings request: who sent it (its API key) and the texts it embedded. */
export interface DeliveredRequest {
  apiKey: string;
  texts: string[];
}

/** A request held unanswered (see hold()). */
export interface HeldRequest {
  apiKey: string;
  texts: string[];
  /**
   * Destroys the held connections (this one and any later one from the same key) without an answer, and stops holding.
   */
  drop(): void;
}

export interface EmbeddingsTestServer {
  url: string;
  apiKey: string;
  /** Requests received (any status, held ones included). */
  requests: number;
  /**
   * Inputs embedded successfully: counted once the response is fully written, so a held or aborted request never
   * counts.
   */
  inputs: number;
  /**
   * Every input text embedded, in order (to check nothing is embedded twice); delivered responses only, as `inputs`.
   */
  texts: string[];
  /** The delivered requests, in order, with the key that sent each. */
  delivered: DeliveredRequest[];
  /**
   * Holds the next embeddings request whose key passes `accept` without answering it; resolves
   * once it arrives. Later requests from the same key are held too (nothing more reaches that
   * caller) until drop().
   */
  hold(accept?: (apiKey: string) => boolean): Promise<HeldRequest>;
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Answers `n` more embeddings requests, then goes down (an outage in the middle of indexing). */
  stopAfter(n: number): void;
  /** Resolves once the server is down. */
  stopped(): Promise<void>;
  /**
   * Milliseconds of work per input (0: instant). Requests are worked through one at a time, like a CPU provider, and a
   * request its caller gave up on still costs its time (the provider does not notice).
   */
  delayPerInputMs: number;
  /** Batches with more inputs are refused with 413 (Infinity: none). */
  maxBatch: number;
  /** Requests whose caller went away before the answer (timed out). */
  abandoned: number;
  close(): Promise<void>;
}

/**
 * `apiKey` is the first key the server accepts; `apiKeys` adds others. `vectorOf` replaces the hashed bag of words
 * (benches: vectors with a known structure); `keepTexts: false` keeps no texts (`texts`, `delivered`: bulk benches).
 */
export async function startEmbeddingsServer(
  opts: {
    apiKey?: string;
    apiKeys?: string[];
    port?: number;
    vectorOf?: (text: string, dimensions: number) => number[];
    keepTexts?: boolean;
    delayPerInputMs?: number;
    maxBatch?: number;
  } = {},
): Promise<EmbeddingsTestServer> {
  const vectorOf = opts.vectorOf ?? deterministicVector;
  const keepTexts = opts.keepTexts ?? true;
  const apiKey = opts.apiKey ?? opts.apiKeys?.[0] ?? 'test-embeddings-key';
  const accepted = new Set([apiKey, ...(opts.apiKeys ?? [])]);
  let server: Server | undefined;
  let port = opts.port ?? 0;
  let remaining = Infinity;
  let down: Promise<void> = Promise.resolve();
  let holding: { accept: (key: string) => boolean; resolve: (held: HeldRequest) => void } | undefined;
  /** The key being held and its unanswered responses. */
  let held: { key: string; responses: ServerResponse[] } | undefined;
  /** When the one-at-a-time provider is free again (delayPerInputMs). */
  let busyUntil = 0;
  const state: EmbeddingsTestServer = {
    url: '',
    apiKey,
    requests: 0,
    inputs: 0,
    texts: [],
    delivered: [],
    delayPerInputMs: opts.delayPerInputMs ?? 0,
    maxBatch: opts.maxBatch ?? Infinity,
    abandoned: 0,
    async start() {
      remaining = Infinity;
      server = createServer((req, res) => {
        state.requests++;
        let body = '';
        req.on('data', (c) => (body += c));
        req.on('end', () => {
          const send = (status: number, json: unknown) =>
            res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(json));
          if (req.method !== 'POST' || req.url !== '/v1/embeddings')
            return send(404, { error: { message: 'not found' } });
          const key = /^Bearer (.*)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
          if (!accepted.has(key)) return send(401, { error: { message: 'bad key' } });
          const { input, dimensions, model } = JSON.parse(body) as {
            input: string[] | string;
            dimensions?: number;
            model: string;
          };
          const inputs = Array.isArray(input) ? input : [input];
          const dims = dimensions ?? 64;
          if (held?.key === key) return void held.responses.push(res);
          if (holding?.accept(key)) {
            const h = { key, responses: [res] };
            held = h;
            holding.resolve({
              apiKey: key,
              texts: inputs,
              drop: () => {
                for (const r of h.responses) r.destroy();
                if (held === h) held = undefined;
              },
            });
            holding = undefined;
            return;
          }
          res.on('finish', () => {
            state.inputs += inputs.length;
            if (!keepTexts) return;
            state.texts.push(...inputs);
            state.delivered.push({ apiKey: key, texts: inputs });
          });
          if (inputs.length > state.maxBatch)
            return send(413, { error: { message: `at most ${state.maxBatch} inputs per request` } });
          if (--remaining <= 0) res.on('finish', () => void (down = state.stop()));
          const answer = () => {
            if (res.destroyed || req.socket.destroyed) return void state.abandoned++;
            send(200, {
              object: 'list',
              model,
              data: inputs.map((text, index) => ({
                object: 'embedding',
                index,
                embedding: vectorOf(text, dims),
              })),
              usage: { prompt_tokens: 0, total_tokens: 0 },
            });
          };
          if (!state.delayPerInputMs) return answer();
          busyUntil = Math.max(busyUntil, Date.now()) + state.delayPerInputMs * inputs.length;
          setTimeout(answer, busyUntil - Date.now());
        });
      });
      await new Promise<void>((resolve) => server!.listen(port, '127.0.0.1', resolve));
      port = (server.address() as AddressInfo).port;
      state.url = `http://127.0.0.1:${port}/v1`;
    },
    async stop() {
      if (!server) return;
      server.closeAllConnections();
      await new Promise((r) => server!.close(r));
      server = undefined;
    },
    hold(accept = () => true) {
      return new Promise<HeldRequest>((resolve) => (holding = { accept, resolve }));
    },
    stopAfter(n) {
      remaining = n;
    },
    async stopped() {
      while (server) await new Promise((r) => setTimeout(r, 20));
      await down;
    },
    async close() {
      await state.stop();
    },
  };
  await state.start();
  return state;
}
