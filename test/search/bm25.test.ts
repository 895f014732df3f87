import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrm, type Orm } from '../../src/db/orm.js';
import { createDrive } from '../../src/drives/drives.js';
import { idf } from '../../src/search/bm25.js';
import type { Passage } from '../../src/search/engine.js';
import { PostgresSearchEngine } from '../../src/search/postgres-engine.js';
import { SearchService } from '../../src/search/service.js';
import { searchDoc as doc } from '../helpers/search-docs.js';

/**
 * The lexical legs rank with BM25 (src/search/bm25.ts) on the real PostgreSQL: any word may match in find, rare words
 * weigh more, long passages do not win by length, operators keep their meaning, accents fold, a passage matches only
 * its own stretch, and search falls back to any word (and says so) when every word finds nothing.
 */
let orm: Orm;
let engine: PostgresSearchEngine;

const newDrive = async () => (await createDrive(orm.em.fork())).id;

/** One artifact whose passages are `texts`, laid end to end (no overlap) unless spans are given. */
async function put(driveId: string, artId: string, texts: string[], spans?: [number, number][]) {
  const whole = texts.join(' ');
  await engine.upsertDocument(doc(driveId, artId, `${artId}.txt`, whole.slice(0, 16_000)));
  let at = 0;
  const passages: Passage[] = texts.map((text, ord) => {
    const [charStart, charEnd] = spans?.[ord] ?? [at, at + text.length];
    at += text.length + 1;
    return { ord, text, modality: 'text', charStart, charEnd, embedding: null };
  });
  await engine.replacePassages(driveId, artId, 1, passages);
}

const lexical = async (driveId: string, q: string) =>
  (await engine.findLexical(driveId, q, { limit: 10 })).map((h) => `${h.artId}#${h.ord}`);

beforeAll(async () => {
  orm = await createOrm(process.env.DATABASE_URL!, { poolMax: 2 });
  engine = new PostgresSearchEngine(process.env.DATABASE_URL!, { poolMax: 2 });
});

afterAll(async () => {
  await engine?.close();
  await orm?.close();
});

describe('BM25 lexical leg', () => {
  it('lets any word match: a question in plain words finds the passage that has some of them', async () => {
    const drive = await newDrive();
    await put(drive, 'art_policy', ['We keep customer invoices for seven years, then shred them.']);
    await put(drive, 'art_other', ['The garden needs water every morning in summer.']);
    expect(await lexical(drive, 'how long do we keep the invoices')).toEqual(['art_policy#0']);
  });

  it('weighs a rare word above a common one repeated', async () => {
    const drive = await newDrive();
    for (let i = 0; i < 8; i++) await put(drive, `art_manual${i}`, [`The manual, the manual, the manual number ${i}.`]);
    await put(drive, 'art_zebra', ['A manual about the zebra.']);
    expect((await lexical(drive, 'zebra manual'))[0]).toBe('art_zebra#0');
    expect(idf(9, 1)).toBeGreaterThan(idf(9, 9) * 5);
  });

  it('does not let a long passage win by its length', async () => {
    const drive = await newDrive();
    const filler = Array.from({ length: 400 }, (_, i) => `filler${i % 50}`).join(' ');
    await put(drive, 'art_long', [`quokka ${filler} quokka`]);
    await put(drive, 'art_short', ['quokka sightings today']);
    const [first] = await lexical(drive, 'quokka');
    expect(first).toBe('art_short#0');
  });

  it('keeps phrases, OR and -negation when they are used', async () => {
    const drive = await newDrive();
    await put(drive, 'art_red_car', ['The red car is parked outside.']);
    await put(drive, 'art_red_door', ['The red door and a car nearby.']);
    await put(drive, 'art_blue', ['A blue bicycle.']);
    expect(await lexical(drive, '"red car"')).toEqual(['art_red_car#0']);
    expect((await lexical(drive, 'red -door')).sort()).toEqual(['art_red_car#0']);
    expect((await lexical(drive, 'bicycle OR door')).sort()).toEqual(['art_blue#0', 'art_red_door#0']);
    // Word-joined words are not a phrase to ask for: each is an optional word.
    expect((await lexical(drive, 'blue-parked')).sort()).toEqual(['art_blue#0', 'art_red_car#0']);
  });

  it('folds accents both ways', async () => {
    const drive = await newDrive();
    await put(drive, 'art_cv', ['Résumé of Zoë Brontë']);
    await put(drive, 'art_plain', ['resume writing tips for Zoe']);
    expect((await lexical(drive, 'resume')).sort()).toEqual(['art_cv#0', 'art_plain#0']);
    expect((await lexical(drive, 'Zoë')).sort()).toEqual(['art_cv#0', 'art_plain#0']);
  });

  it('matches a passage only on its own stretch, not on the overlap it shares with the next', async () => {
    const drive = await newDrive();
    // Passage 0 covers [0, 40) and passage 1 [30, 70): "marmoset" (30-38) is in both texts, but it is passage 1's own.
    const text = `${'aardvark '.repeat(3)}bee ${'marmoset '}${'pangolin '.repeat(4)}x`;
    expect(text.indexOf('marmoset')).toBe(31);
    await put(
      drive,
      'art_overlap',
      [text.slice(0, 40), text.slice(30, 70)],
      [
        [0, 40],
        [30, 70],
      ],
    );
    expect(await lexical(drive, 'marmoset')).toEqual(['art_overlap#1']);
    expect(await lexical(drive, 'aardvark')).toEqual(['art_overlap#0']);
  });
});

describe('BM25 search', () => {
  it('ranks files by BM25 and finds the kept original file name, accents folded', async () => {
    const drive = await newDrive();
    await engine.upsertDocument(doc(drive, 'art_cv', 'docs/cv.pdf', '', { filename: 'Résumé Zoë.pdf' }));
    await engine.upsertDocument(doc(drive, 'art_x', 'docs/x.txt', 'nothing to see'));
    expect((await engine.search(drive, 'resume', { limit: 10 })).map((h) => h.artId)).toEqual(['art_cv']);
  });

  it('falls back to any word when every word finds nothing, and says so', async () => {
    const drive = await newDrive();
    await engine.upsertDocument(doc(drive, 'art_inv', 'invoices.md', 'We keep customer invoices for seven years.'));
    const recorded: string[] = [];
    const service = new SearchService({
      engine,
      usage: { record: async (_d: string, what: string) => void recorded.push(what) } as never,
    });
    const strict = await service.search(drive, 'invoices seven', { limit: 10 });
    expect(strict).toMatchObject({ match: 'all', hits: [{ artId: 'art_inv' }] });
    const loose = await service.search(drive, 'how long do we store invoices', { limit: 10 });
    expect(loose.match).toBe('any');
    expect(loose.hits.map((h) => h.artId)).toEqual(['art_inv']);
    const none = await service.search(drive, 'zanzibar', { limit: 10 });
    expect(none).toEqual({ hits: [], match: 'all' });
  });
});
