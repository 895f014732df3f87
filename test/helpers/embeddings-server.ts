import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A deterministic OpenAI-compatible embeddings server on 127.0.0.1 for tests. A text's vector
 * is a hashed bag of words, after mapping a few synonyms onto one concept, so "automobile"
 * lands near "car" (semantic match without a shared word) while unrelated texts stay apart.
 * It can be stopped and started again on the same port to simulate a provider outage.
 */
const CONCEPTS: Record<string, string> = {
  automobile: 'car', vehicle: 'car', cars: 'car', sedan: 'car',
  feline: 'cat', kitten: 'cat', cats: 'cat',
  physician: 'doctor', medic: 'doctor', doctors: 'doctor',
};

export function deterministicVector(text: string, dimensions: number): number[] {
  const v = new Array<number>(dimensions).fill(0);
  for (const raw of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
    const word = CONCEPTS[raw] ?? raw;
    const h = createHash('sha256').update(word).digest();
    v[h.readUInt32BE(0) % dimensions]! += h[4]! & 1 ? 1 : -1;
  }
  return v;
}

export interface EmbeddingsTestServer {
  url: string;
  apiKey: string;
  /** Requests answered (any status). */
  requests: number;
  /** Inputs embedded successfully. */
  inputs: number;
  /** Every input text embedded, in order (to check nothing is embedded twice). */
  texts: string[];
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Answers `n` more embeddings requests, then goes down (an outage in the middle of indexing). */
  stopAfter(n: number): void;
  /** Resolves once the server is down. */
  stopped(): Promise<void>;
  close(): Promise<void>;
}

export async function startEmbeddingsServer(opts: { apiKey?: string; port?: number } = {}): Promise<EmbeddingsTestServer> {
  const apiKey = opts.apiKey ?? 'test-embeddings-key';
  let server: Server | undefined;
  let port = opts.port ?? 0;
  let remaining = Infinity;
  let down: Promise<void> = Promise.resolve();
  const state: EmbeddingsTestServer = {
    url: '',
    apiKey,
    requests: 0,
    inputs: 0,
    texts: [],
    async start() {
      remaining = Infinity;
      server = createServer((req, res) => {
        state.requests++;
        let body = '';
        req.on('data', (c) => (body += c));
        req.on('end', () => {
          const send = (status: number, json: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(json));
          if (req.method !== 'POST' || req.url !== '/v1/embeddings') return send(404, { error: { message: 'not found' } });
          if (req.headers.authorization !== `Bearer ${apiKey}`) return send(401, { error: { message: 'bad key' } });
          const { input, dimensions, model } = JSON.parse(body) as { input: string[] | string; dimensions?: number; model: string };
          const inputs = Array.isArray(input) ? input : [input];
          const dims = dimensions ?? 64;
          state.inputs += inputs.length;
          state.texts.push(...inputs);
          if (--remaining <= 0) res.on('finish', () => void (down = state.stop()));
          send(200, {
            object: 'list',
            model,
            data: inputs.map((text, index) => ({ object: 'embedding', index, embedding: deterministicVector(text, dims) })),
            usage: { prompt_tokens: 0, total_tokens: 0 },
          });
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
