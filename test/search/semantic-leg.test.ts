import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrm, type Orm } from '../../src/db/orm.js';
import { createDrive } from '../../src/drives/drives.js';
import { purgeDrive } from '../../src/drives/drive-lifecycle.js';
import type { FindFilters } from '../../src/search/engine.js';
import { PostgresSearchEngine } from '../../src/search/postgres-engine.js';
import { queryPlanes, queryTernary } from '../../src/search/semantic-signatures.js';
import {
  DOCS,
  PASSAGES_PER_DOC,
  docOf,
  dot,
  exactTop,
  ids,
  passagesOf,
  queryNear,
  vectorOf,
  writeFixedSet,
} from './fixed-vectors.js';

/**
 * The PostgreSQL engine's semantic leg (signature scan + exact rerank): its recall on a small fixed set when the
 * scan keeps fewer passages than match, exact answers when it keeps them all, the depth, and that every change
 * (new version, delete, rename, drive purge) reaches it.
 */
let orm: Orm;
let admin: pg.Pool;
let exact: PostgresSearchEngine;
let narrow: PostgresSearchEngine;
let coarse: PostgresSearchEngine;

async function seedDrive(): Promise<string> {
  const driveId = (await createDrive(orm.em.fork())).id;
  await writeFixedSet(exact, driveId);
  return driveId;
}

/** Recall@10 of `engine` on a fresh copy of the set over 20 queries, near documents `stride` apart. */
async function recallAt10(engine: PostgresSearchEngine, stride: number, seed: number): Promise<number> {
  const driveId = await seedDrive();
  let found = 0;
  for (let q = 0; q < 20; q++) {
    const query = queryNear((q * stride) % DOCS, q % 4, q + seed);
    const hits = await engine.findSemantic(driveId, { vector: query, q: 'x' }, { limit: 10 });
    const truth = new Set(exactTop(query, 10));
    found += ids(hits).filter((id) => truth.has(id)).length;
  }
  return found / 200;
}

beforeAll(async () => {
  orm = await createOrm(process.env.DATABASE_URL!, { poolMax: 2 });
  admin = new pg.Pool({ connectionString: process.env.DATABASE_URL!, max: 1 });
  // Keeps all 400 passages (the default keeps 300): its answers are the exact ranking's.
  exact = new PostgresSearchEngine(process.env.DATABASE_URL!, {
    poolMax: 2,
    semanticCandidates: DOCS * PASSAGES_PER_DOC,
  });
  // Keeps 40 of 400 passages: the answers come from the signature scan's estimate.
  narrow = new PostgresSearchEngine(process.env.DATABASE_URL!, { poolMax: 2, semanticCandidates: 40 });
  // The coarse estimate keeps 160 of 400 passages, the fine one 40 of those.
  coarse = new PostgresSearchEngine(process.env.DATABASE_URL!, {
    poolMax: 2,
    semanticCandidates: 40,
    coarseCandidates: 160,
  });
});

afterAll(async () => {
  await exact?.close();
  await narrow?.close();
  await coarse?.close();
  await admin?.end();
  await orm?.close();
});

describe('postgres semantic leg', () => {
  it('stores the sign of each component as the signature (the migration backfills it the same way)', async () => {
    const driveId = (await createDrive(orm.em.fork())).id;
    await exact.upsertDocument(docOf(driveId, 0));
    await exact.replacePassages(
      driveId,
      'art_0',
      1,
      passagesOf(0, () => [0.5, -0.5, 0, 0.7071]),
    );
    const { rows } = await admin.query<{ s: string }>(
      `select signature::text as s from search_passages where drive_id = $1 and ord = 0`,
      [driveId],
    );
    expect(rows[0]!.s).toBe('1001');
    expect(queryPlanes([0, 1, 0.5])).toMatchObject({ planes: ['010', '010', '010', '011'], min: 0 });
    // RMS ≈ 0.47, so τ ≈ 0.24: the small components count for nothing, the large negative one is flipped.
    expect(queryTernary([0.1, -0.6, 0.7, -0.2])).toEqual({ flip: '0100', mask: '0110' });
  });

  it('ranks a drive no larger than the scan keeps exactly, as the exact scan did', async () => {
    const driveId = await seedDrive();
    for (let q = 0; q < 5; q++) {
      const query = queryNear(q * 17, q % 4, q + 100);
      const hits = await exact.findSemantic(driveId, { vector: query, q: 'x' }, { limit: 20 });
      expect(ids(hits)).toEqual(exactTop(query, 20));
      const best = hits[0]!;
      expect(best.score).toBeCloseTo(dot(query, vectorOf(Number(best.artId.slice(4)), best.ord)), 5);
    }
  });

  it('keeps recall@10 ≥ 0.9 on a fixed set when the scan keeps a tenth of the passages', async () => {
    expect(await recallAt10(narrow, 37, 1)).toBeGreaterThanOrEqual(0.9);
  });

  it('keeps recall@10 ≥ 0.9 when the coarse estimate keeps 40 % of the passages and the fine one a tenth', async () => {
    expect(await recallAt10(coarse, 41, 50)).toBeGreaterThanOrEqual(0.9);
  });

  it('honours filters before the scan keeps its candidates, and the 200-hit depth', async () => {
    const driveId = await seedDrive();
    const query = queryNear(3, 0, 5);
    const filtered: FindFilters = { limit: 20, prefix: 'topic-3/', labels: ['odd'] };
    const hits = await narrow.findSemantic(driveId, { vector: query, q: 'x' }, filtered);
    // 10 documents in topic-3/, all odd: 40 passages, no more than the scan keeps, so the order is exact.
    expect(ids(hits)).toEqual(exactTop(query, 20, (i) => i % 10 === 3 && i % 2 === 1));
    const even = await narrow.findSemantic(
      driveId,
      { vector: query, q: 'x' },
      { ...filtered, labels: [], fileType: 'code' },
    );
    expect(even).toEqual([]);
    const deep = await narrow.findSemantic(driveId, { vector: query, q: 'x' }, { limit: 201 });
    expect(deep.length).toBe(201);
    expect(ids(deep)).toEqual(exactTop(query, 201));
  });

  it('reflects new versions, deletes, renames and drive purges', async () => {
    const driveId = await seedDrive();
    const query = queryNear(42, 1, 9);
    // The default scan (it keeps every passage of this drive): what is asserted is the change, not the estimate, and a
    // narrow scan's cut among equal estimates depends on the table's physical order, which other suites move.
    const top = async () => ids(await exact.findSemantic(driveId, { vector: query, q: 'x' }, { limit: 5 }));
    expect((await top())[0]).toBe('art_42#1');

    // A new version whose passages point elsewhere: the old vectors are gone from the scan.
    await exact.upsertDocument(docOf(driveId, 42, { versionNumber: 2 }));
    await exact.replacePassages(
      driveId,
      'art_42',
      2,
      passagesOf(42, (ord) => vectorOf(43, ord)),
    );
    expect(await top()).not.toContain('art_42#1');

    // Rename: the hit carries the new path and the prefix filter follows it.
    await exact.patchArtifact(driveId, 'art_41', { path: 'moved/doc-41.md' });
    const moved = await narrow.findSemantic(driveId, { vector: query, q: 'x' }, { limit: 5, prefix: 'moved/' });
    expect(moved.map((h) => h.path)).toEqual(Array(PASSAGES_PER_DOC).fill('moved/doc-41.md'));
    const notMoved = await narrow.findSemantic(driveId, { vector: query, q: 'x' }, { limit: 400, prefix: 'topic-1/' });
    expect(notMoved.map((h) => h.artId)).not.toContain('art_41');

    // Delete: none of its passages come back.
    const before = await top();
    const removed = before[0]!.split('#')[0]!;
    await exact.removeArtifact(driveId, removed);
    expect((await top()).some((id) => id.startsWith(`${removed}#`))).toBe(false);

    // Drive purge: the drive's rows go by cascade, and the leg answers nothing.
    await purgeDrive(orm.em.fork(), driveId);
    expect(await top()).toEqual([]);
    const { rows } = await admin.query<{ n: number }>(
      'select count(*)::int as n from search_passages where drive_id = $1',
      [driveId],
    );
    expect(rows[0]!.n).toBe(0);
  });
});
