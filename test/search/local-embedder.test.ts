import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrm, type Orm } from '../../src/db/orm.js';
import { createDrive } from '../../src/drives/drives.js';
import { createEmbedder, embeddingsSummary } from '../../src/search/index.js';
import { LocalEmbedder } from '../../src/search/local-embedder.js';
import { DEFAULT_MODEL_DIR, LOCAL_MODEL } from '../../src/search/local-model-files.js';
import { PostgresSearchEngine } from '../../src/search/postgres-engine.js';
import { SearchService } from '../../src/search/service.js';
import { windowsOf } from '../../src/search/token-windows.js';
import { loadConfig } from '../../src/lib/config.js';

/** The embedded model as it ships (scripts/fetch-model.ts put it in place): loading, vectors, windows, the checksum. */
const embedder = new LocalEmbedder();
const firstWindow = new LocalEmbedder({ longPassages: 'first-window' });
const windowsOnly = new LocalEmbedder({ longPassages: 'windows' });
const dot = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i]!, 0);

afterAll(async () => {
  await embedder.close();
  await firstWindow.close();
  await windowsOnly.close();
});

describe('the embedded model', () => {
  it('loads and gives unit vectors of 384 dimensions', async () => {
    const [v] = await embedder.embed(['how long do we store bills']);
    expect(v).toHaveLength(LOCAL_MODEL.dimensions);
    expect(Math.hypot(...v!)).toBeCloseTo(1, 5);
    expect(embedder.space).toBe('all-MiniLM-L6-v2/384');
  });

  it('puts a question near its answer in other words', async () => {
    const [q, answer, unrelated] = await embedder.embed([
      'how long do we store bills',
      'we keep customer invoices for seven years',
      'the recipe needs two eggs and a cup of flour',
    ]);
    expect(dot(q!, answer!)).toBeGreaterThan(dot(q!, unrelated!) + 0.2);
  });

  it('embeds a passage longer than the window by its windows', async () => {
    const filler = 'The committee reviewed the garden plan, the parking rules and the summer schedule. '.repeat(45);
    const passage = `${filler} Invoices from customers are archived for seven years before they are destroyed.`;
    const [query] = await embedder.embed(['how long are invoices archived']);
    const before = embedder.tokens;
    const [windowed] = await embedder.embed([passage]);
    expect(embedder.tokens - before).toBeGreaterThan(LOCAL_MODEL.window * 2);
    const [first] = await firstWindow.embed([passage]);
    const [averaged] = await windowsOnly.embed([passage]);
    expect(Math.hypot(...windowed!)).toBeCloseTo(1, 5);
    // The sentence past the first window counts only when every window does.
    expect(dot(query!, averaged!)).toBeGreaterThan(dot(query!, first!) + 0.05);
    // The default adds the lead window to that average (token-windows.ts, `lead-and-windows`).
    const sum = first!.map((x, d) => x + averaged![d]!);
    const norm = Math.hypot(...sum);
    sum.forEach((x, d) => expect(windowed![d]!).toBeCloseTo(x / norm, 4));
    expect(new Set([firstWindow.space, windowsOnly.space, embedder.space]).size).toBe(3);
  });

  it('refuses a model whose weights are not the pinned file', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'model-'));
    try {
      for (const f of LOCAL_MODEL.files) {
        mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
        copyFileSync(path.join(DEFAULT_MODEL_DIR, f), path.join(dir, f));
      }
      const weights = readFileSync(path.join(dir, 'model.safetensors'));
      weights[weights.length - 1] ^= 1;
      writeFileSync(path.join(dir, 'model.safetensors'), weights);
      const tampered = new LocalEmbedder({ modelDir: dir });
      await expect(tampered.embed(['anything'])).rejects.toThrow(/refusing to load .*model\.safetensors: sha256 /);
      await tampered.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('windows of a long passage', () => {
  const ids = Array.from({ length: 600 }, (_, i) => i);
  it('covers every piece once by weight, the last window ending at the end', () => {
    const ws = windowsOf(ids, 254, 32, 'windows');
    expect(ws.map((w) => w.ids.length)).toEqual([254, 254, 254]);
    expect(ws.at(-1)!.ids.at(-1)).toBe(599);
    expect(ws.reduce((s, w) => s + w.weight, 0)).toBe(600);
  });
  it('keeps a short passage whole and the first window alone when asked', () => {
    expect(windowsOf(ids.slice(0, 10), 254, 32, 'windows')).toEqual([{ ids: ids.slice(0, 10), weight: 10 }]);
    expect(windowsOf(ids, 254, 32, 'first-window').map((w) => w.ids.length)).toEqual([254]);
  });
});

describe('the default provider', () => {
  it('is the embedded model with no EMBEDDINGS_URL; off and a URL select the others', () => {
    const base = { ...process.env, EMBEDDINGS_URL: undefined };
    const local = loadConfig({ ...base, EMBEDDINGS_PROVIDER: undefined });
    expect(createEmbedder(local)).toBeInstanceOf(LocalEmbedder);
    expect(embeddingsSummary(local)).toBe('embeddings: all-MiniLM-L6-v2 (local, 384 dims)');
    const off = loadConfig({ ...base, EMBEDDINGS_PROVIDER: 'off' });
    expect(createEmbedder(off)).toBeUndefined();
    expect(embeddingsSummary(off)).toBe('embeddings: off');
    const remote = loadConfig({ ...base, EMBEDDINGS_URL: 'https://example.test/v1', EMBEDDINGS_DIMENSIONS: '1536' });
    expect(embeddingsSummary(remote)).toBe('embeddings: https://example.test/v1 (text-embedding-3-small, 1536 dims)');
  });
});

describe('find with the embedded model', () => {
  let orm: Orm;
  let engine: PostgresSearchEngine;
  let driveId: string;
  const usage = { record: async () => undefined };

  beforeAll(async () => {
    orm = await createOrm(process.env.DATABASE_URL!, { poolMax: 1 });
    engine = new PostgresSearchEngine(process.env.DATABASE_URL!, { poolMax: 2 });
    driveId = (await createDrive(orm.em.fork())).id;
    const docs = [
      ['art_invoices', 'policy/retention.md', 'We keep customer invoices for seven years.'],
      ['art_garden', 'notes/garden.md', 'Water the tomatoes every morning in July.'],
      ['art_deploy', 'ops/deploy.md', 'Deployments run on Tuesdays after the tests pass.'],
    ] as const;
    const vectors = await embedder.embed(docs.map((d) => d[2]));
    for (const [i, [artId, p, text]] of docs.entries()) {
      await engine.upsertDocument({
        driveId,
        artId,
        path: p,
        contentType: 'text/markdown',
        fileType: 'text',
        labels: [],
        metadata: {},
        updatedAt: new Date(),
        versionNumber: 1,
        preview: text,
      });
      await engine.replacePassages(driveId, artId, 1, [
        { ord: 0, text, modality: 'text', charStart: 0, charEnd: text.length, embedding: vectors[i]! },
      ]);
    }
  });

  afterAll(async () => {
    await engine?.close();
    await orm?.close();
  });

  it('answers "how long do we store bills" with the invoices first', async () => {
    const service = new SearchService({ engine, usage, embedder });
    for (const mode of ['semantic', 'hybrid'] as const) {
      const { hits, semantic } = await service.find(driveId, { q: 'how long do we store bills', mode, limit: 3 });
      expect(hits[0]?.artId, mode).toBe('art_invoices');
      expect(semantic.status, mode).toBe('ok');
    }
  });
});
