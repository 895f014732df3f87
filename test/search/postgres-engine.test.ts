import { afterAll, describe, expect, it } from 'vitest';
import { createOrm, type Orm } from '../../src/db/orm.js';
import { PostgresSearchEngine } from '../../src/search/postgres-engine.js';
import { createDrive } from '../../src/services/drives.js';
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
      driveId: drive, artId: 'art_gone', path: 'gone.txt', contentType: 'text/plain', fileType: 'text', labels: [], metadata: {},
      updatedAt: new Date(), versionNumber: 1, preview: 'wobblefrost',
    };
    await engine!.upsertDocument(doc);
    await engine!.removeArtifact(drive, 'art_gone');
    await engine!.replacePassages(drive, 'art_gone', 1, [{ ord: 0, text: 'wobblefrost', modality: 'text', charStart: 0, charEnd: 11, embedding: null }]);
    expect(await engine!.findLexical(drive, 'wobblefrost', { limit: 10 })).toEqual([]);
    // With the document present the same call writes the passage.
    await engine!.upsertDocument(doc);
    await engine!.replacePassages(drive, 'art_gone', 1, [{ ord: 0, text: 'wobblefrost', modality: 'text', charStart: 0, charEnd: 11, embedding: null }]);
    expect((await engine!.findLexical(drive, 'wobblefrost', { limit: 10 })).map((h) => h.ord)).toEqual([0]);
  });
});

afterAll(async () => {
  await engine?.close();
  await orm?.close();
});
