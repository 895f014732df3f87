import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmbeddingsClient, EmbeddingsError, endpointOf } from '../../src/search/embeddings.js';
import { deterministicVector, startEmbeddingsServer, type EmbeddingsTestServer } from '../helpers/embeddings-server.js';

/** A provider that fails the first `failures` requests with `status`, then behaves. */
async function flakyProvider(status: number, failures: number) {
  const seen = { requests: 0, batchSizes: [] as number[] };
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      seen.requests++;
      if (seen.requests <= failures) return res.writeHead(status).end('{"error":{"message":"provider says no"}}');
      const { input } = JSON.parse(body) as { input: string[] };
      seen.batchSizes.push(input.length);
      // Out of order on purpose: the client must sort by index.
      const data = input.map((t, index) => ({ index, embedding: deterministicVector(t, 8) })).reverse();
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return { url, seen, close: () => new Promise((r) => server.close(r)) };
}

/** A provider that needs `msPerInput` per input (requests side by side) and refuses batches above `maxBatch` (413). */
async function slowProvider(msPerInput: number, maxBatch = Infinity) {
  const seen = { batchSizes: [] as number[] };
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const { input } = JSON.parse(body) as { input: string[] };
      seen.batchSizes.push(input.length);
      if (input.length > maxBatch) return res.writeHead(413).end('{"error":{"message":"too many inputs"}}');
      setTimeout(() => {
        if (res.destroyed) return;
        const data = input.map((t, index) => ({ index, embedding: deterministicVector(t, 8) }));
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data }));
      }, msPerInput * input.length);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return {
    url,
    seen,
    close: () => new Promise((r) => (server.closeAllConnections(), server.close(r))),
  };
}

const settings = (url: string, dimensions = 8) => ({ url, apiKey: 'k', model: 'm', dimensions });

describe('embeddings client', () => {
  let server: EmbeddingsTestServer;
  beforeAll(async () => {
    server = await startEmbeddingsServer();
  });
  afterAll(async () => server.close());

  it('builds the endpoint from an API base URL', () => {
    expect(endpointOf('https://api.example.test/v1/')).toBe('https://api.example.test/v1/embeddings');
    expect(endpointOf('https://api.example.test/v1/embeddings')).toBe('https://api.example.test/v1/embeddings');
  });

  it('embeds in batches, in input order, as unit vectors', async () => {
    const client = new EmbeddingsClient({ ...settings(server.url, 16), apiKey: server.apiKey }, { batchSize: 3 });
    const texts = Array.from({ length: 7 }, (_, i) => `text number ${i} about cars`);
    const before = server.requests;
    const vectors = await client.embed(texts);
    expect(server.requests - before).toBe(3);
    expect(vectors).toHaveLength(7);
    for (const v of vectors) expect(Math.hypot(...v)).toBeCloseTo(1, 6);
    const raw = deterministicVector(texts[4]!, 16);
    const norm = Math.hypot(...raw);
    expect(vectors[4]).toEqual(raw.map((x) => expect.closeTo(x / norm, 6)));
  });

  it('retries 5xx and 429, then succeeds', async () => {
    const p = await flakyProvider(503, 2);
    const vectors = await new EmbeddingsClient(settings(p.url), { backoffMs: 5 }).embed(['a b', 'c']);
    expect(vectors).toHaveLength(2);
    expect(p.seen.requests).toBe(3);
    await p.close();
  });

  it('fails at once, clearly, on a 4xx other than 429', async () => {
    const p = await flakyProvider(400, 99);
    const err = await new EmbeddingsClient(settings(p.url), { backoffMs: 5 }).embed(['a']).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EmbeddingsError);
    expect((err as EmbeddingsError).retryable).toBe(false);
    expect((err as Error).message).toMatch(/answered 400: .*provider says no/);
    expect(p.seen.requests).toBe(1);
    await p.close();
  });

  it('names the provider when it is unreachable, and marks it retryable', async () => {
    const p = await flakyProvider(500, 0);
    await p.close();
    const err = (await new EmbeddingsClient(settings(p.url), { backoffMs: 5, attempts: 2 })
      .embed(['a'])
      .catch((e: unknown) => e)) as EmbeddingsError;
    expect(err.retryable).toBe(true);
    expect(err.message).toContain(`unreachable at ${p.url}/embeddings`);
  });

  it('rejects vectors of the wrong dimension', async () => {
    const client = new EmbeddingsClient({ ...settings(server.url, 16), apiKey: server.apiKey });
    (client as unknown as { dimensions: number }).dimensions = 32;
    const err = (await client.embed(['a']).catch((e: unknown) => e)) as EmbeddingsError;
    expect(err.message).toMatch(/returned 16 dimensions; EMBEDDINGS_DIMENSIONS is 32/);
  });

  it('splits a batch that times out, down to what the provider manages, and keeps that size for a while', async () => {
    // 40 ms per input against a 200 ms timeout (no per-input allowance): 4 inputs pass, 8 do not.
    const p = await slowProvider(40);
    const client = new EmbeddingsClient(settings(p.url), {
      batchSize: 16,
      timeoutMs: 200,
      timeoutPerInputMs: 0,
      backoffMs: 5,
    });
    const texts = Array.from({ length: 24 }, (_, i) => `slow text ${i}`);
    const vectors = await client.embed(texts);
    expect(vectors).toHaveLength(24);
    expect(vectors[13]).toEqual((await client.embed([texts[13]!]))[0]);
    expect(p.seen.batchSizes.slice(0, 3)).toEqual([16, 8, 4]);
    expect(p.seen.batchSizes.slice(3).every((n) => n <= 4)).toBe(true);
    expect(client.currentBatchSize).toBe(4);
    await p.close();
  });

  it('the timeout grows with the batch: a provider at 10 inputs a second gets whole batches', async () => {
    const p = await slowProvider(100);
    const client = new EmbeddingsClient(settings(p.url), { batchSize: 8, timeoutMs: 300, timeoutPerInputMs: 150 });
    expect(await client.embed(Array.from({ length: 16 }, (_, i) => `t${i}`))).toHaveLength(16);
    expect(p.seen.batchSizes).toEqual([8, 8]);
    await p.close();
  });

  it('splits a batch refused as too large (413), then grows back after a run of successes', async () => {
    const p = await slowProvider(0, 3);
    const client = new EmbeddingsClient(settings(p.url), { batchSize: 8 });
    expect(await client.embed(Array.from({ length: 8 }, (_, i) => `t${i}`))).toHaveLength(8);
    expect(p.seen.batchSizes).toEqual([8, 4, 2, 2, 2, 2]);
    expect(client.currentBatchSize).toBe(2);
    // Eight successes at 2, then 4 is tried again (and refused, so back to 2).
    await client.embed(Array.from({ length: 16 }, (_, i) => `u${i}`));
    expect(client.currentBatchSize).toBe(2);
    expect(p.seen.batchSizes).toContain(4);
    await p.close();
  });

  it('a single input that times out is retried, then fails retryable', async () => {
    const p = await slowProvider(500);
    const client = new EmbeddingsClient(settings(p.url), { timeoutMs: 50, attempts: 2, backoffMs: 5 });
    const err = (await client.embed(['a']).catch((e: unknown) => e)) as EmbeddingsError;
    expect(err).toBeInstanceOf(EmbeddingsError);
    expect(err.retryable).toBe(true);
    expect(err.message).toMatch(/did not answer 1 inputs within 50 ms/);
    expect(p.seen.batchSizes).toEqual([1, 1]);
    await p.close();
  });
});
