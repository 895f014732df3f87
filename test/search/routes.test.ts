import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmbeddingsClient } from '../../src/search/embeddings.js';
import type { Passage, SearchDocument } from '../../src/search/engine.js';
import { PostgresSearchEngine } from '../../src/search/postgres-engine.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { startEmbeddingsServer, type EmbeddingsTestServer } from '../helpers/embeddings-server.js';
import { createTenant } from '../helpers/tenant.js';
import { searchDoc as doc } from '../helpers/search-docs.js';

/**
 * /v0/search and /v0/find through HTTP: validation (SPEC 4.2), filters, hit shapes, the `_wiki/`
 * rule, and the three find modes with and without an embeddings provider. Documents are seeded
 * straight through the engine (the artifacts domain is not on this branch).
 */
const DIMS = 64;
let plain: TestApi;
let withEmbeddings: TestApi;
let embeddings: EmbeddingsTestServer;
let engine: PostgresSearchEngine;
let tenant: Awaited<ReturnType<typeof createTenant>>;

const get = async (api: TestApi, path: string, auth: Record<string, string> = tenant.auth) => {
  const res = await fetch(`${api.url}${path}`, { headers: auth });
  return { status: res.status, body: (await res.json()) as any };
};

async function seed(driveId: string) {
  const client = new EmbeddingsClient({
    url: embeddings.url,
    apiKey: embeddings.apiKey,
    model: 'test',
    dimensions: DIMS,
  });
  const texts: Record<string, { doc: SearchDocument; passages: Omit<Passage, 'embedding' | 'ord'>[] }> = {
    art_cars: {
      doc: doc(driveId, 'art_cars', 'garage/cars.md', 'The red car needs new tyres.', {
        labels: ['garage', 'todo'],
        fileType: 'markdown',
      }),
      passages: [
        { text: 'The red car needs new tyres.', modality: 'text', charStart: 0, charEnd: 28 },
        { text: 'Book the garage for the tyres on Monday.', modality: 'text', charStart: 29, charEnd: 69 },
      ],
    },
    art_pets: {
      doc: doc(driveId, 'art_pets', 'home/pets.txt', 'The kitten sleeps near the tyres.', {
        labels: ['home'],
        updatedAt: new Date('2026-06-01T00:00:00Z'),
      }),
      passages: [{ text: 'The kitten sleeps near the tyres.', modality: 'text', charStart: 0, charEnd: 33 }],
    },
    art_slides: {
      doc: doc(driveId, 'art_slides', 'talks/deck.pdf', '', { contentType: 'application/pdf', fileType: 'pdf' }),
      passages: [{ text: 'Slides about tyres and wheels.', modality: 'pdf', pageStart: 4, pageEnd: 5 }],
    },
    art_wiki: {
      doc: doc(driveId, 'art_wiki', '_wiki/concepts/tyres.md', 'Tyres are round. A car has four.', {
        fileType: 'markdown',
      }),
      passages: [{ text: 'Tyres are round. A car has four.', modality: 'text', charStart: 0, charEnd: 32 }],
    },
  };
  for (const [artId, { doc: d, passages }] of Object.entries(texts)) {
    await engine.upsertDocument(d);
    const vectors = await client.embed(passages.map((p) => p.text));
    await engine.replacePassages(
      driveId,
      artId,
      1,
      passages.map((p, ord) => ({ ...p, ord, embedding: vectors[ord]! })),
    );
  }
  for (let i = 0; i < 25; i++)
    await engine.upsertDocument(
      doc(driveId, `art_bulk${i}`, `bulk/item-${String(i).padStart(2, '0')}.txt`, `bulk entry ${i}`),
    );
}

beforeAll(async () => {
  embeddings = await startEmbeddingsServer();
  plain = await startTestApi();
  withEmbeddings = await startTestApi({
    EMBEDDINGS_URL: embeddings.url,
    EMBEDDINGS_API_KEY: embeddings.apiKey,
    EMBEDDINGS_DIMENSIONS: String(DIMS),
  });
  engine = new PostgresSearchEngine(process.env.DATABASE_URL!, { poolMax: 2 });
  tenant = await createTenant(plain.ctx);
  await seed(tenant.driveId);
});

afterAll(async () => {
  await engine?.close();
  await plain?.close();
  await withEmbeddings?.close();
  await embeddings?.close();
});

describe('GET /v0/search', () => {
  it('needs a bearer credential', async () => {
    expect((await get(plain, '/v0/search?q=tyres', {})).status).toBe(401);
  });

  it('validates the query (SPEC 4.2) with 422', async () => {
    for (const qs of [
      '',
      'q=',
      `q=${'a'.repeat(201)}`,
      'q=a&limit=0',
      'q=a&limit=101',
      'q=a&limit=x',
      'q=a&label=Bad',
      'q=a&updated_after=yesterday',
    ]) {
      const { status, body } = await get(plain, `/v0/search?${qs}`);
      expect(status, qs).toBe(422);
      expect(body.detail[0]).toEqual({
        loc: expect.arrayContaining(['query']),
        msg: expect.any(String),
        type: expect.any(String),
      });
    }
    expect((await get(plain, `/v0/search?q=${'a'.repeat(200)}`)).status).toBe(200);
  });

  it('returns ranked hits with the documented fields', async () => {
    const { status, body } = await get(plain, '/v0/search?q=tyres');
    expect(status).toBe(200);
    expect(body.next_cursor).toBeNull();
    const paths = body.items.map((h: any) => h.path);
    expect(paths.sort()).toEqual(['_wiki/concepts/tyres.md', 'garage/cars.md', 'home/pets.txt']);
    const hit = body.items.find((h: any) => h.art_id === 'art_cars');
    expect(hit).toMatchObject({
      drive_id: tenant.driveId,
      content_type: 'text/plain',
      file_type: 'markdown',
      labels: ['garage', 'todo'],
      version_number: 1,
      updated_at: '2026-05-01T00:00:00.000Z',
    });
    expect(hit.url).toBe(`${plain.url}/${tenant.driveId}/garage/cars.md`);
    expect(hit.permalink).toBe(`${plain.url}/a/art_cars`);
    expect(hit.snippet).toContain('<mark>tyres</mark>');
    expect(typeof hit.score).toBe('number');
    expect(body.items[0].art_id).toBe('art_wiki'); // path match (weight A) first
  });

  it('says match=all when every word matched, and falls back to any word (match=any) when that finds nothing', async () => {
    const all = await get(plain, '/v0/search?q=red%20tyres');
    expect(all.body.match).toBe('all');
    expect(all.body.items.map((h: any) => h.art_id)).toEqual(['art_cars']);
    const any = await get(plain, '/v0/search?q=kitten%20zeppelin');
    expect(any.body.match).toBe('any');
    expect(any.body.items.map((h: any) => h.art_id)).toEqual(['art_pets']);
  });

  it('applies repeatable labels (AND), file_type, prefix and inclusive time bounds', async () => {
    const ids = async (qs: string) =>
      (await get(plain, `/v0/search?q=tyres&${qs}`)).body.items.map((h: any) => h.art_id).sort();
    expect(await ids('label=garage&label=todo')).toEqual(['art_cars']);
    expect(await ids('label=garage&label=home')).toEqual([]);
    expect(await ids('file_type=text')).toEqual(['art_pets']);
    expect(await ids('prefix=home/')).toEqual(['art_pets']);
    expect(await ids('updated_after=2026-06-01T00:00:00Z')).toEqual(['art_pets']);
    expect(await ids('updated_before=2026-05-01T00:00:00%2B00:00')).toEqual(['art_cars', 'art_wiki']);
  });

  it('defaults limit to 20 and accepts up to 100', async () => {
    expect((await get(plain, '/v0/search?q=bulk')).body.items).toHaveLength(20);
    expect((await get(plain, '/v0/search?q=bulk&limit=100')).body.items).toHaveLength(25);
    expect((await get(plain, '/v0/search?q=bulk&limit=3')).body.items).toHaveLength(3);
  });

  it('next_cursor pages through the ranking to the end, without duplicates or skips (spec 2.4)', async () => {
    for (const [endpoint, extra, key] of [
      ['search', '', (h: any) => h.art_id],
      ['find', '&mode=lexical', (h: any) => `${h.art_id}#${h.ord}`],
    ] as const) {
      const whole = (await get(plain, `/v0/${endpoint}?q=bulk&limit=100${extra}`)).body;
      expect(whole.next_cursor).toBeNull();
      const walked: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const { status, body } = await get(
          plain,
          `/v0/${endpoint}?q=bulk&limit=7${extra}${cursor ? `&cursor=${cursor}` : ''}`,
        );
        expect(status).toBe(200);
        walked.push(...body.items.map(key));
        cursor = body.next_cursor;
        pages++;
      } while (cursor && pages < 20);
      expect(walked, endpoint).toEqual(whole.items.map(key));
      expect(new Set(walked).size).toBe(walked.length);
      if (endpoint === 'search') expect(pages).toBe(4); // 25 hits: 7 + 7 + 7 + 4
    }
    // A cursor is bound to its query and filters; a garbled one is BAD_CURSOR too.
    const first = (await get(plain, '/v0/search?q=bulk&limit=7')).body;
    for (const qs of [`q=tyres&cursor=${first.next_cursor}`, 'q=bulk&cursor=garbage!']) {
      const { status, body } = await get(plain, `/v0/search?${qs}`);
      expect(status, qs).toBe(400);
      expect(body.detail.error.code).toBe('BAD_CURSOR');
    }
  });
});

describe('GET /v0/find', () => {
  it('validates q (1..500), mode and modality', async () => {
    for (const qs of [`q=${'a'.repeat(501)}`, 'q=a&mode=fuzzy', 'q=a&modality=hologram', 'q=a&limit=101']) {
      expect((await get(plain, `/v0/find?${qs}`)).status, qs).toBe(422);
    }
    expect((await get(plain, `/v0/find?q=${'a'.repeat(500)}&mode=lexical`)).status).toBe(200);
  });

  it('returns passages with exactly one span pair and excludes _wiki/ even when prefix names it', async () => {
    const { body } = await get(plain, '/v0/find?q=tyres&mode=lexical');
    const keys = body.items.map((h: any) => `${h.art_id}#${h.ord}`).sort();
    expect(keys).toEqual(['art_cars#0', 'art_cars#1', 'art_pets#0', 'art_slides#0']);
    const pdf = body.items.find((h: any) => h.art_id === 'art_slides');
    expect(pdf).toMatchObject({
      modality: 'pdf',
      page_start: 4,
      page_end: 5,
      text: 'Slides about tyres and wheels.',
      rank_semantic: null,
    });
    expect(pdf.char_start).toBeUndefined();
    const text = body.items.find((h: any) => h.art_id === 'art_pets');
    expect(text).toMatchObject({ char_start: 0, char_end: 33, modality: 'text' });
    expect(text.page_start).toBeUndefined();
    expect((await get(plain, '/v0/find?q=tyres&mode=lexical&prefix=_wiki/')).body.items).toEqual([]);
  });

  it('filters by repeatable modality', async () => {
    const only = async (qs: string) =>
      (await get(plain, `/v0/find?q=tyres&mode=lexical&${qs}`)).body.items.map((h: any) => h.modality);
    expect(await only('modality=pdf')).toEqual(['pdf']);
    expect((await only('modality=pdf&modality=text')).sort()).toEqual(['pdf', 'text', 'text', 'text']);
    expect(await only('modality=video')).toEqual([]);
  });

  it('without an embeddings provider: semantic is 500 with the envelope, hybrid falls back to lexical', async () => {
    const semantic = await get(plain, '/v0/find?q=automobile&mode=semantic');
    expect(semantic.status).toBe(500);
    expect(semantic.body.detail.error.code).toBe('EMBEDDINGS_NOT_CONFIGURED');
    const hybrid = await get(plain, '/v0/find?q=tyres');
    const lexical = await get(plain, '/v0/find?q=tyres&mode=lexical');
    expect(hybrid.status).toBe(200);
    expect(hybrid.body.items.map((h: any) => `${h.art_id}#${h.ord}`)).toEqual(
      lexical.body.items.map((h: any) => `${h.art_id}#${h.ord}`),
    );
    expect(hybrid.body.items.every((h: any) => h.rank_semantic === null)).toBe(true);
    // …and says so: never a silent lexical-only answer.
    expect(hybrid.body.semantic).toEqual({ status: 'off', note: expect.stringMatching(/lexical only/) });
    expect(lexical.body.semantic.status).toBe('not_used');
  });

  it('semantic mode finds meaning without shared words (real embeddings server)', async () => {
    expect((await get(withEmbeddings, '/v0/find?q=automobile&mode=lexical')).body.items).toEqual([]);
    const { status, body } = await get(withEmbeddings, '/v0/find?q=automobile&mode=semantic&limit=2');
    expect(status).toBe(200);
    expect(body.items[0]).toMatchObject({ art_id: 'art_cars', ord: 0, rank_semantic: 1, rank_lexical: null });
    expect(body.items.every((h: any) => !h.path.startsWith('_wiki/'))).toBe(true);
    const feline = await get(withEmbeddings, '/v0/find?q=feline&mode=semantic&limit=1');
    expect(feline.body.items[0].art_id).toBe('art_pets');
  });

  it('hybrid fuses both legs by RRF (k=60)', async () => {
    const { body } = await get(withEmbeddings, '/v0/find?q=car tyres&limit=10');
    const top = body.items[0];
    // The red-car passage is first in both legs: 2/61.
    expect(top).toMatchObject({ art_id: 'art_cars', ord: 0, rank_lexical: 1, rank_semantic: 1 });
    expect(top.score).toBeCloseTo(2 / 61, 10);
    for (const h of body.items) {
      const expected =
        (h.rank_lexical ? 1 / (60 + h.rank_lexical) : 0) + (h.rank_semantic ? 1 / (60 + h.rank_semantic) : 0);
      expect(h.score).toBeCloseTo(expected, 10);
    }
    const scores = body.items.map((h: any) => h.score);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
    expect(body.semantic).toEqual({ status: 'ok', note: expect.any(String) });
  });

  it('is listed in the OpenAPI document', async () => {
    const { body } = await get(plain, '/openapi.json', {});
    expect(Object.keys(body.paths)).toEqual(expect.arrayContaining(['/v0/search', '/v0/find']));
    const page = body.paths['/v0/find'].get.responses['200'].content['application/json'].schema;
    expect(page.required).toEqual(expect.arrayContaining(['items', 'next_cursor', 'semantic']));
    expect(page.properties.semantic.properties.status.enum).toEqual([
      'ok',
      'catching_up',
      'off',
      'unavailable',
      'not_used',
    ]);
  });
});
