import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../src/lib/errors.js';
import { createOrm, type Orm } from '../../src/db/orm.js';
import { EmbeddingsClient } from '../../src/search/embeddings.js';
import { PostgresSearchEngine } from '../../src/search/postgres-engine.js';
import { hybridCandidates, SearchService } from '../../src/search/service.js';
import type { SearchUsageKind } from '../../src/search/usage.js';
import { createDrive } from '../../src/drives/drives.js';
import { startEmbeddingsServer, type EmbeddingsTestServer } from '../helpers/embeddings-server.js';

/** The search service on the PostgreSQL engine: usage counting and degraded modes. */
let orm: Orm;
let engine: PostgresSearchEngine;
let embeddings: EmbeddingsTestServer;
let driveId: string;
const counted: { driveId: string; kind: SearchUsageKind }[] = [];
const usage = { record: async (d: string, kind: SearchUsageKind) => void counted.push({ driveId: d, kind }) };

beforeAll(async () => {
  orm = await createOrm(process.env.DATABASE_URL!, { poolMax: 1 });
  engine = new PostgresSearchEngine(process.env.DATABASE_URL!, { poolMax: 2 });
  embeddings = await startEmbeddingsServer();
  driveId = (await createDrive(orm.em.fork())).id;
  await engine.upsertDocument({
    driveId,
    artId: 'art_svc',
    path: 'a/boats.txt',
    contentType: 'text/plain',
    fileType: 'text',
    labels: [],
    metadata: {},
    updatedAt: new Date(),
    versionNumber: 1,
    preview: 'Sailing boats in the harbour.',
  });
  await engine.replacePassages(driveId, 'art_svc', 1, [
    { ord: 0, text: 'Sailing boats in the harbour.', modality: 'text', charStart: 0, charEnd: 29, embedding: null },
  ]);
});

afterAll(async () => {
  await engine?.close();
  await orm?.close();
  await embeddings?.close();
});

describe('search service', () => {
  it('counts one retrieval query per search and per find', async () => {
    const service = new SearchService({ engine, usage });
    const before = counted.length;
    await service.search(driveId, 'boats', { limit: 5 });
    await service.find(driveId, { q: 'boats', mode: 'lexical', limit: 5 });
    await service.find(driveId, { q: 'boats', mode: 'hybrid', limit: 5 });
    expect(counted.slice(before)).toEqual(Array(3).fill({ driveId, kind: 'retrieval_queries' }));
  });

  it('does not count a rejected semantic query', async () => {
    const service = new SearchService({ engine, usage });
    const before = counted.length;
    const err = await service.find(driveId, { q: 'boats', mode: 'semantic', limit: 5 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).status).toBe(500);
    expect(counted.length).toBe(before);
  });

  it('hybrid answers lexically when the provider is down; semantic says 502', async () => {
    await embeddings.stop();
    const warnings: string[] = [];
    const embedder = new EmbeddingsClient(
      { url: embeddings.url, apiKey: embeddings.apiKey, model: 'm', dimensions: 16 },
      { attempts: 1 },
    );
    const service = new SearchService({ engine, usage, embedder, onWarning: (m) => void warnings.push(m) });
    const { hits, semantic } = await service.find(driveId, { q: 'boats', mode: 'hybrid', limit: 5 });
    expect(hits.map((h) => [h.artId, h.rankLexical, h.rankSemantic])).toEqual([['art_svc', 1, null]]);
    expect(semantic.status).toBe('unavailable');
    expect(semantic.note).toMatch(/lexical only/);
    expect(warnings).toHaveLength(1);
    const err = (await service
      .find(driveId, { q: 'boats', mode: 'semantic', limit: 5 })
      .catch((e: unknown) => e)) as AppError;
    expect([err.status, err.code]).toEqual([502, 'EMBEDDINGS_UNAVAILABLE']);
    await embeddings.start();
  });

  it('says what the semantic leg did: off without a provider, not used for lexical, catching up while passages wait', async () => {
    const off = await new SearchService({ engine, usage }).find(driveId, { q: 'boats', mode: 'hybrid', limit: 5 });
    expect(off.semantic).toEqual({ status: 'off', note: expect.stringMatching(/lexical only/) });
    expect(off.hits.length).toBe(1);
    const embedder = new EmbeddingsClient({
      url: embeddings.url,
      apiKey: embeddings.apiKey,
      model: 'm',
      dimensions: 16,
    });
    const service = new SearchService({ engine, usage, embedder });
    const lexical = await service.find(driveId, { q: 'boats', mode: 'lexical', limit: 5 });
    expect(lexical.semantic.status).toBe('not_used');
    // art_svc's one passage was stored without a vector.
    for (const mode of ['hybrid', 'semantic'] as const) {
      const behind = await service.find(driveId, { q: 'boats', mode, limit: 5 });
      expect(behind.semantic).toMatchObject({ status: 'catching_up', pendingPassages: 1 });
      expect(behind.semantic.note).toMatch(/1 passage in scope is not embedded yet/);
    }
    // Out of scope (another prefix): nothing waits there.
    const elsewhere = await service.find(driveId, { q: 'boats', mode: 'hybrid', limit: 5, prefix: 'b/' });
    expect(elsewhere.semantic.status).toBe('ok');
    const [vector] = await embedder.embed(['Sailing boats in the harbour.']);
    await engine.setPassageVectors([{ driveId, artId: 'art_svc', versionNumber: 1, ord: 0, embedding: vector! }]);
    const caughtUp = await service.find(driveId, { q: 'boats', mode: 'hybrid', limit: 5 });
    expect(caughtUp.semantic).toEqual({ status: 'ok', note: expect.any(String) });
    expect(caughtUp.hits[0]).toMatchObject({ artId: 'art_svc', rankLexical: 1, rankSemantic: 1 });
  });

  it('widens each hybrid leg before fusion', () => {
    expect(hybridCandidates(1)).toBe(40);
    expect(hybridCandidates(50)).toBe(100);
    expect(hybridCandidates(100)).toBe(200);
  });
});
