import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { purgeDrive } from '../../src/drives/drive-lifecycle.js';
import { createDrive } from '../../src/drives/drives.js';
import { loadConfig } from '../../src/lib/config.js';
import { closeContext, createContext, type AppContext } from '../../src/platform/context.js';
import { PostgresSearchEngine } from '../../src/search/postgres-engine.js';
import {
  buildSemanticGraph,
  dropOrphanGraphs,
  graphBuilder,
  graphMaintenance,
  graphNeed,
  type GraphBuilder,
} from '../../src/search/semantic-graph-build.js';
import { SemanticGraphCache, type GraphNeighbours } from '../../src/search/semantic-graph-cache.js';
import { graphRecord } from '../../src/search/semantic-graph-store.js';
import { semanticGraphWorkflowId } from '../../src/temporal/search-messages.js';
import * as fixed from './fixed-vectors.js';

/**
 * Large drives' graph index (docs/decisions/search.md, "A graph index for large drives"), on a drive of 400 passages
 * with the threshold at 300 (the test stack's SEARCH_GRAPH_MIN_PASSAGES): built by its workflow on the test worker,
 * kept in S3, opened by the engine's cache; what the graph misses (written since, deleted since, renamed, filtered)
 * is still answered right.
 */
let ctx: AppContext;
let builder: GraphBuilder;
let cache: SemanticGraphCache;
/** Every answer the engine got from the graph cache (undefined: it scanned). */
const asked: (GraphNeighbours | undefined)[] = [];
let engine: PostgresSearchEngine;
let exact: PostgresSearchEngine;

const CANDIDATES = 40;

async function seedDrive(): Promise<string> {
  const driveId = (await createDrive(ctx.orm.em.fork())).id;
  await fixed.writeFixedSet(exact, driveId);
  return driveId;
}

async function withGraph(): Promise<string> {
  const driveId = await seedDrive();
  expect(await buildSemanticGraph(builder, driveId)).toEqual({ passages: fixed.DOCS * fixed.PASSAGES_PER_DOC });
  expect(await cache.ready(driveId)).toBe(true);
  return driveId;
}

beforeAll(async () => {
  ctx = await createContext(loadConfig(process.env), 'test');
  builder = graphBuilder(ctx);
  cache = new SemanticGraphCache(ctx.pool, builder.objects);
  const spy = {
    async nearest(...args: Parameters<SemanticGraphCache['nearest']>) {
      const answer = await cache.nearest(...args);
      asked.push(answer);
      return answer;
    },
    close: () => cache.close(),
  };
  // Keeps 40 candidates of 400: from the graph, the exact rerank sees a tenth of the drive.
  engine = new PostgresSearchEngine(process.env.DATABASE_URL!, {
    poolMax: 2,
    semanticCandidates: CANDIDATES,
    graphs: spy,
  });
  exact = new PostgresSearchEngine(process.env.DATABASE_URL!, { poolMax: 2, semanticCandidates: fixed.DOCS * 4 });
});

afterAll(async () => {
  await engine?.close();
  await exact?.close();
  if (ctx) await closeContext(ctx);
});

describe('semantic graphs', () => {
  it('are built by their workflow once a drive reaches the threshold, and find takes its candidates from them', async () => {
    expect(builder.minPassages).toBe(300);
    const driveId = await seedDrive();
    expect(await graphNeed(builder, driveId)).toBe('build');
    await graphMaintenance(ctx)([driveId]);
    const built = await ctx.temporal.workflow.getHandle(semanticGraphWorkflowId(driveId)).result();
    expect(built).toEqual({ passages: 400 });
    expect(await graphNeed(builder, driveId)).toBeNull();
    expect(await cache.ready(driveId)).toBe(true);

    asked.length = 0;
    let found = 0;
    for (let q = 0; q < 20; q++) {
      const query = fixed.queryNear((q * 37) % fixed.DOCS, q % 4, q + 1);
      const hits = await engine.findSemantic(driveId, { vector: query, q: 'x' }, { limit: 10 });
      const truth = new Set(fixed.exactTop(query, 10));
      found += fixed.ids(hits).filter((id) => truth.has(id)).length;
    }
    expect(found / 200).toBeGreaterThanOrEqual(0.9);
    expect(asked).toHaveLength(20);
    for (const answer of asked) expect(answer?.keys).toHaveLength(CANDIDATES);
  });

  it('scans what was written since the build, never returns what was deleted since, and follows renames', async () => {
    const driveId = await withGraph();
    const query = fixed.queryNear(42, 1, 9);
    const top = async (limit = 5) => engine.findSemantic(driveId, { vector: query, q: 'x' }, { limit });
    asked.length = 0;
    expect(fixed.ids(await top())[0]).toBe('art_42#1');

    // A new artifact whose passages are the query itself: only the scan of passages since the build can find it.
    await exact.upsertDocument(fixed.docOf(driveId, fixed.DOCS));
    await exact.replacePassages(
      driveId,
      `art_${fixed.DOCS}`,
      1,
      fixed.passagesOf(fixed.DOCS, () => query),
    );
    expect(fixed.ids(await top(4)).sort()).toEqual([0, 1, 2, 3].map((ord) => `art_${fixed.DOCS}#${ord}`));

    // A new version pointing elsewhere: the graph's keys for the old passages find no row.
    await exact.upsertDocument(fixed.docOf(driveId, 42, { versionNumber: 2 }));
    await exact.replacePassages(
      driveId,
      'art_42',
      2,
      fixed.passagesOf(42, (ord) => fixed.vectorOf(43, ord)),
    );
    expect(fixed.ids(await top(20))).not.toContain('art_42#1');

    await exact.patchArtifact(driveId, 'art_41', { path: 'moved/doc-41.md' });
    const moved = (await top(400)).filter((h) => h.artId === 'art_41');
    expect(moved.map((h) => h.path)).toEqual(Array(fixed.PASSAGES_PER_DOC).fill('moved/doc-41.md'));

    await exact.removeArtifact(driveId, `art_${fixed.DOCS}`);
    expect(fixed.ids(await top(20)).some((id) => id.startsWith(`art_${fixed.DOCS}#`))).toBe(false);
    // Every one of those queries took its candidates from the graph (none fell back to the scan).
    expect(asked.length).toBe(5);
    expect(asked.every((answer) => answer !== undefined && answer.keys.length >= CANDIDATES)).toBe(true);
  });

  it('adds passages written since the build to the open graph in place, so a query no longer scans them', async () => {
    const driveId = await withGraph();
    const record = (await graphRecord(ctx.pool, driveId))!;
    const query = fixed.queryNear(7, 2, 11);
    await exact.upsertDocument(fixed.docOf(driveId, fixed.DOCS + 1));
    await exact.replacePassages(
      driveId,
      `art_${fixed.DOCS + 1}`,
      1,
      fixed.passagesOf(fixed.DOCS + 1, () => query),
    );
    const { rows } = await ctx.pool.query<{ seq: string }>(
      'select seq::text from search_passages where drive_id = $1 and art_id = $2 order by ord',
      [driveId, `art_${fixed.DOCS + 1}`],
    );
    expect(rows).toHaveLength(fixed.PASSAGES_PER_DOC);

    await cache.catchUp();
    const answer = (await cache.nearest(driveId, query, 10))!;
    // The graph itself now gives the new passages (the query vector's exact copies come first), and the query's scan
    // starts after them: they are no longer scanned.
    expect(answer.keys.slice(0, fixed.PASSAGES_PER_DOC).sort()).toEqual(rows.map((r) => r.seq).sort());
    expect(answer.builtXmin).toBe(record.builtXmin);
    expect(BigInt(answer.coveredXmin)).toBeGreaterThan(BigInt(record.builtXmin));
    const hits = await engine.findSemantic(driveId, { vector: query, q: 'x' }, { limit: 4 });
    expect(fixed.ids(hits).sort()).toEqual([0, 1, 2, 3].map((ord) => `art_${fixed.DOCS + 1}#${ord}`));
    // Nothing new: a catch-up adds nothing twice.
    await cache.catchUp();
    expect((await cache.nearest(driveId, query, 10))!.keys.slice(0, 4).sort()).toEqual(rows.map((r) => r.seq).sort());
  });

  it('leaves filtered queries to the scan, replaces a rebuilt graph, and loses it with the drive', async () => {
    const driveId = await withGraph();
    const query = fixed.queryNear(3, 0, 5);
    asked.length = 0;
    const filtered = await engine.findSemantic(driveId, { vector: query, q: 'x' }, { limit: 20, prefix: 'topic-3/' });
    expect(asked).toHaveLength(0);
    expect(filtered.every((h) => h.path.startsWith('topic-3/'))).toBe(true);
    expect(filtered).toHaveLength(20);

    const first = (await graphRecord(ctx.pool, driveId))!;
    await exact.removeArtifact(driveId, 'art_0');
    // Read in rounds of 64 passages: each round starts after the last one's largest key.
    await buildSemanticGraph({ ...builder, page: 64 }, driveId);
    const second = (await graphRecord(ctx.pool, driveId))!;
    expect(second.objectKey).not.toBe(first.objectKey);
    expect(second.passages).toBe(fixed.DOCS * fixed.PASSAGES_PER_DOC - fixed.PASSAGES_PER_DOC);
    await expect(builder.objects.download(first.objectKey, '/dev/null')).rejects.toThrow();
    expect(await cache.ready(driveId)).toBe(true);
    await engine.findSemantic(driveId, { vector: query, q: 'x' }, { limit: 5 });
    expect(asked.at(-1)?.builtXmin).toBe(second.builtXmin);

    await purgeDrive(ctx.orm.em.fork(), driveId);
    expect(await engine.findSemantic(driveId, { vector: query, q: 'x' }, { limit: 5 })).toEqual([]);
    expect(await dropOrphanGraphs(builder)).toBeGreaterThanOrEqual(1);
    expect(await graphRecord(ctx.pool, driveId)).toBeUndefined();
    await expect(builder.objects.download(second.objectKey, '/dev/null')).rejects.toThrow();
  });
});
