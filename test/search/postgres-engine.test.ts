import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrm, type Orm } from '../../src/db/orm.js';
import { PostgresSearchEngine } from '../../src/search/postgres-engine.js';
import { createDrive } from '../../src/drives/drives.js';
import { engineContract } from './engine-contract.js';

let orm: Orm | undefined;
let engine: PostgresSearchEngine | undefined;

engineContract('postgres', async () => {
  orm = await createOrm(process.env.DATABASE_URL!, { poolMax: 2 });
  engine = new PostgresSearchEngine(process.env.DATABASE_URL!, { poolMax: 2 });
  return {
    engine,
    newDrive: async () => (await createDrive(orm!.em.fork())).id,
  };
});

describe('postgres engine: a pass that ends after its artifact was removed', () => {
  it('writes no passages and does not fail (the pending remove follows)', async () => {
    const drive = (await createDrive(orm!.em.fork())).id;
    const doc = {
      driveId: drive,
      artId: 'art_gone',
      path: 'gone.txt',
      contentType: 'text/plain',
      fileType: 'text',
      labels: [],
      metadata: {},
      updatedAt: new Date(),
      versionNumber: 1,
      preview: 'wobblefrost',
    };
    await engine!.upsertDocument(doc);
    await engine!.removeArtifact(drive, 'art_gone');
    await engine!.replacePassages(drive, 'art_gone', 1, [
      { ord: 0, text: 'wobblefrost', modality: 'text', charStart: 0, charEnd: 11, embedding: null },
    ]);
    expect(await engine!.findLexical(drive, 'wobblefrost', { limit: 10 })).toEqual([]);
    // With the document present the same call writes the passage.
    await engine!.upsertDocument(doc);
    await engine!.replacePassages(drive, 'art_gone', 1, [
      { ord: 0, text: 'wobblefrost', modality: 'text', charStart: 0, charEnd: 11, embedding: null },
    ]);
    expect((await engine!.findLexical(drive, 'wobblefrost', { limit: 10 })).map((h) => h.ord)).toEqual([0]);
  });
});

describe('postgres engine: a broad query ranks only its most recent matches (rankCandidates)', () => {
  // Six artifacts mention "glimmer". The three oldest match strongly (in the path, weight A, and
  // three times in their passage); the three newest match weakly (once, in the content). Ranked
  // over every match, the old ones win; with a cap of 3, only the three newest are candidates.
  const day = (n: number) => new Date(Date.UTC(2026, 0, 1 + n));
  // "quasar" is selective: the oldest artifact and the newest (its second passage, and its preview).
  const text = (i: number) =>
    (i < 3 ? 'glimmer glimmer glimmer report' : 'a glimmer of a note') + (i === 0 ? ' quasar' : '');
  const docs = (driveId: string) =>
    [0, 1, 2, 3, 4, 5].map((i) => ({
      driveId,
      artId: `art_g${i}`,
      path: i < 3 ? `glimmer/old-${i}.md` : `notes/new-${i}.md`,
      contentType: 'text/markdown',
      fileType: 'markdown',
      labels: [],
      metadata: {},
      updatedAt: day(i),
      versionNumber: 1,
      preview: `${text(i)}${i === 5 ? ' about a quasar' : ''}`,
    }));
  let drive: string;
  let capped: PostgresSearchEngine;
  let full: PostgresSearchEngine;
  const ids = (hits: { artId: string }[]) => hits.map((h) => h.artId);
  const passageIds = (hits: { artId: string; ord: number }[]) => hits.map((h) => `${h.artId}#${h.ord}`);

  beforeAll(async () => {
    capped = new PostgresSearchEngine(process.env.DATABASE_URL!, { poolMax: 1, rankCandidates: 3 });
    full = new PostgresSearchEngine(process.env.DATABASE_URL!, { poolMax: 1 });
    drive = (await createDrive(orm!.em.fork())).id;
    for (const doc of docs(drive)) {
      await full.upsertDocument(doc);
      // The newest artifact has two matching passages; the others one each.
      const i = Number(doc.artId.slice(-1));
      const passages = [
        { ord: 0, text: text(i), modality: 'text' as const, charStart: 0, charEnd: 20, embedding: null },
      ];
      if (i === 5)
        passages.push({
          ord: 1,
          text: 'another glimmer, near a quasar',
          modality: 'text',
          charStart: 20,
          charEnd: 50,
          embedding: null,
        });
      await full.replacePassages(drive, doc.artId, 1, passages);
    }
  });

  afterAll(async () => {
    await capped?.close();
    await full?.close();
  });

  it('search ranks only the N most recently updated matches', async () => {
    expect(
      ids(await full.search(drive, 'glimmer', { limit: 10 }))
        .slice(0, 3)
        .sort(),
    ).toEqual(['art_g0', 'art_g1', 'art_g2']);
    const hits = await capped.search(drive, 'glimmer', { limit: 10 });
    expect(ids(hits).sort()).toEqual(['art_g3', 'art_g4', 'art_g5']);
    expect(hits.map((h) => h.score)).toEqual([...hits.map((h) => h.score)].sort((a, b) => b - a));
    // Filters apply before the cap: the three most recent matches *that pass them*.
    expect(ids(await capped.search(drive, 'glimmer', { limit: 10, updatedBefore: day(2) })).sort()).toEqual([
      'art_g0',
      'art_g1',
      'art_g2',
    ]);
  });

  it('find ranks only the N most recent matching passages (newest artifact first, then ord)', async () => {
    expect(
      passageIds(await full.findLexical(drive, 'glimmer', { limit: 10 }))
        .slice(0, 3)
        .sort(),
    ).toEqual(['art_g0#0', 'art_g1#0', 'art_g2#0']);
    const hits = await capped.findLexical(drive, 'glimmer', { limit: 10 });
    expect(passageIds(hits).sort()).toEqual(['art_g4#0', 'art_g5#0', 'art_g5#1']);
  });

  it('a selective query (fewer matches than N) returns what the uncapped engine returns', async () => {
    const search = await capped.search(drive, 'quasar', { limit: 10 });
    expect(ids(search).sort()).toEqual(['art_g0', 'art_g5']);
    expect(search).toEqual(await full.search(drive, 'quasar', { limit: 10 }));
    const find = await capped.findLexical(drive, 'quasar', { limit: 10 });
    expect(passageIds(find).sort()).toEqual(['art_g0#0', 'art_g5#1']);
    expect(find).toEqual(await full.findLexical(drive, 'quasar', { limit: 10 }));
  });
});

afterAll(async () => {
  await engine?.close();
  await orm?.close();
});
