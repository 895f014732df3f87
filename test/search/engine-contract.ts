import { beforeAll, describe, expect, it } from 'vitest';
import type { Passage, SearchDocument, SearchEngine, SearchFilters } from '../../src/search/engine.js';

/**
 * The contract every search engine passes: the spec's query syntax, ranking by field weight,
 * every filter, snippets, passage spans, semantic order, and the change operations.
 * Each engine's test file calls engineContract with a factory for the engine and fresh drives.
 */
export interface ContractSetup {
  engine: SearchEngine;
  newDrive(): Promise<string>;
}

const day = (d: string) => new Date(`${d}T12:00:00.000Z`);

function documents(driveId: string): SearchDocument[] {
  const base = { driveId, contentType: 'text/markdown', metadata: {}, labels: [] as string[], versionNumber: 1 };
  return [
    {
      ...base,
      artId: 'art_report',
      path: 'reports/q3-summary.md',
      fileType: 'markdown',
      labels: ['report', 'final'],
      metadata: { author: 'alice', topic: 'finance' },
      updatedAt: day('2026-01-10'),
      preview: 'The quarterly revenue grew strongly. Running costs fell.',
    },
    {
      ...base,
      artId: 'art_notes',
      path: 'notes/meeting_notes-2026.txt',
      contentType: 'text/plain',
      fileType: 'text',
      labels: ['draft'],
      metadata: { author: 'bob' },
      updatedAt: day('2026-02-10'),
      preview: 'We discussed the migration plan and database indexes. A summary of decisions follows.',
    },
    {
      ...base,
      artId: 'art_code',
      path: 'code/search_engine.ts',
      contentType: 'text/x-typescript',
      fileType: 'code',
      labels: ['code', 'final'],
      updatedAt: day('2026-03-10'),
      preview: 'export function runQuery() { return lookupIndex(); }',
    },
    {
      ...base,
      artId: 'art_wiki',
      path: '_wiki/entities/alice.md',
      fileType: 'markdown',
      updatedAt: day('2026-03-15'),
      preview: 'Alice writes quarterly revenue reports.',
    },
    {
      ...base,
      artId: 'art_pdf',
      path: 'docs/guide.pdf',
      contentType: 'application/pdf',
      fileType: 'pdf',
      metadata: { title: 'Installation handbook' },
      updatedAt: day('2026-04-01'),
      preview: '',
    },
  ];
}

const unit = (v: number[]) => {
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
};

function passages(): Record<string, Passage[]> {
  return {
    art_report: [
      {
        ord: 0,
        text: 'The quarterly revenue grew strongly.',
        modality: 'text',
        charStart: 0,
        charEnd: 36,
        embedding: unit([1, 0, 0]),
      },
      {
        ord: 1,
        text: 'Running costs fell across regions.',
        modality: 'text',
        charStart: 30,
        charEnd: 64,
        embedding: unit([0, 1, 0]),
      },
    ],
    art_pdf: [
      {
        ord: 0,
        text: 'Install the handbook tools, then revenue tables.',
        modality: 'pdf',
        pageStart: 2,
        pageEnd: 3,
        embedding: unit([0.9, 0.1, 0]),
      },
    ],
    art_wiki: [
      {
        ord: 0,
        text: 'Alice writes quarterly revenue reports.',
        modality: 'text',
        charStart: 0,
        charEnd: 39,
        embedding: unit([1, 0, 0]),
      },
    ],
    art_code: [
      {
        ord: 0,
        text: 'export function runQuery() { return lookupIndex(); }',
        modality: 'code',
        charStart: 0,
        charEnd: 52,
        embedding: unit([0, 0, 1]),
      },
    ],
  };
}

export function engineContract(name: string, setup: () => Promise<ContractSetup>) {
  describe(`search engine contract: ${name}`, () => {
    let engine: SearchEngine;
    let drive: string;
    let other: string;
    const paths = async (q: string, f: Partial<SearchFilters> = {}) =>
      (await engine.search(drive, q, { limit: 20, ...f })).map((h) => h.path);
    const ids = async (q: string, f: Partial<SearchFilters> = {}) =>
      (await engine.search(drive, q, { limit: 20, ...f })).map((h) => h.artId).sort();

    beforeAll(async () => {
      const s = await setup();
      engine = s.engine;
      drive = await s.newDrive();
      other = await s.newDrive();
      await engine.init();
      for (const doc of documents(drive)) await engine.upsertDocument(doc);
      for (const [artId, list] of Object.entries(passages())) await engine.replacePassages(drive, artId, 1, list);
      await engine.upsertDocument({ ...documents(other)[0]!, artId: 'art_other' });
    });

    it('matches English stems: "revenues" finds revenue, "run" finds Running', async () => {
      expect(await ids('revenues')).toEqual(['art_report', 'art_wiki']);
      expect(await ids('cost')).toEqual(['art_report']);
    });

    it('matches path words with / . _ - as boundaries', async () => {
      expect(await ids('meeting')).toEqual(['art_notes']);
      expect(await ids('q3')).toEqual(['art_report']);
      expect(await ids('engine')).toEqual(['art_code']);
    });

    it('searches metadata values and labels; PDF content is not in the preview', async () => {
      expect(await ids('handbook')).toEqual(['art_pdf']);
      expect(await ids('bob')).toEqual(['art_notes']);
      expect(await ids('draft')).toEqual(['art_notes']);
    });

    it('quoted phrases need the words in order', async () => {
      expect(await ids('"revenue grew"')).toEqual(['art_report']);
      expect(await ids('"grew revenue"')).toEqual([]);
    });

    it('a leading minus excludes', async () => {
      expect(await ids('revenue -wiki')).toEqual(['art_report']);
      expect(await ids('quarterly -"revenue grew"')).toEqual(['art_wiki']);
    });

    it('words are AND-ed; OR gives alternatives', async () => {
      expect(await ids('quarterly alice')).toEqual(['art_report', 'art_wiki']);
      expect(await ids('revenue database')).toEqual([]);
      expect(await ids('database OR handbook')).toEqual(['art_notes', 'art_pdf']);
    });

    it('ranks a path match above a content match', async () => {
      expect(await paths('summary')).toEqual(['reports/q3-summary.md', 'notes/meeting_notes-2026.txt']);
    });

    it('filters: labels (AND), file_type, prefix, inclusive updated bounds, limit', async () => {
      expect(await ids('revenue OR database OR runquery OR handbook', { labels: ['final'] })).toEqual([
        'art_code',
        'art_report',
      ]);
      expect(await ids('revenue OR database OR runquery', { labels: ['final', 'report'] })).toEqual(['art_report']);
      expect(await ids('revenue OR database OR runquery', { fileType: 'code' })).toEqual(['art_code']);
      expect(await ids('revenue OR database', { prefix: 'notes/' })).toEqual(['art_notes']);
      expect(await ids('revenue OR database', { prefix: 'notes' })).toEqual(['art_notes']);
      const at = day('2026-02-10');
      expect(await ids('revenue OR database OR runquery', { updatedAfter: at })).toEqual([
        'art_code',
        'art_notes',
        'art_wiki',
      ]);
      expect(await ids('revenue OR database OR runquery', { updatedBefore: at })).toEqual(['art_notes', 'art_report']);
      expect(await ids('revenue OR database OR runquery', { updatedAfter: at, updatedBefore: at })).toEqual([
        'art_notes',
      ]);
      expect(await paths('revenue OR database', { limit: 1 })).toHaveLength(1);
    });

    it('returns hit fields and a highlighted snippet', async () => {
      const [hit] = await engine.search(drive, 'grew', { limit: 5 });
      expect(hit).toMatchObject({
        artId: 'art_report',
        driveId: drive,
        path: 'reports/q3-summary.md',
        fileType: 'markdown',
        contentType: 'text/markdown',
        labels: ['report', 'final'],
        versionNumber: 1,
      });
      expect(hit!.updatedAt.toISOString()).toBe('2026-01-10T12:00:00.000Z');
      expect(hit!.snippet).toContain('<mark>grew</mark>');
      expect(hit!.score).toBeGreaterThan(0);
    });

    it('keeps drives apart', async () => {
      expect(await ids('revenue')).not.toContain('art_other');
      expect((await engine.search(other, 'revenue', { limit: 5 })).map((h) => h.artId)).toEqual(['art_other']);
    });

    it('finds passages lexically with spans, modality filter and an excluded prefix', async () => {
      const hits = await engine.findLexical(drive, 'revenue', { limit: 10, excludePrefix: '_wiki/' });
      expect(hits.map((h) => `${h.artId}#${h.ord}`).sort()).toEqual(['art_pdf#0', 'art_report#0']);
      const pdf = hits.find((h) => h.artId === 'art_pdf')!;
      expect(pdf).toMatchObject({ modality: 'pdf', pageStart: 2, pageEnd: 3, path: 'docs/guide.pdf' });
      expect(pdf.charStart).toBeUndefined();
      const text = hits.find((h) => h.artId === 'art_report')!;
      expect(text).toMatchObject({ modality: 'text', charStart: 0, charEnd: 36 });
      expect(text.snippet).toContain('<mark>revenue</mark>');
      const onlyPdf = await engine.findLexical(drive, 'revenue', { limit: 10, modalities: ['pdf'] });
      expect(onlyPdf.map((h) => h.artId)).toEqual(['art_pdf']);
      const withWiki = await engine.findLexical(drive, 'revenue', { limit: 10 });
      expect(withWiki.map((h) => h.artId)).toContain('art_wiki');
    });

    it('orders semantic hits by cosine similarity and applies filters', async () => {
      const hits = await engine.findSemantic(
        drive,
        { vector: unit([1, 0.05, 0]), q: 'revenue' },
        { limit: 3, excludePrefix: '_wiki/' },
      );
      expect(hits.map((h) => `${h.artId}#${h.ord}`)).toEqual(['art_report#0', 'art_pdf#0', 'art_report#1']);
      expect(hits[0]!.score).toBeGreaterThan(hits[1]!.score);
      const code = await engine.findSemantic(
        drive,
        { vector: unit([1, 0, 0]), q: 'x' },
        { limit: 3, fileType: 'code' },
      );
      expect(code.map((h) => h.artId)).toEqual(['art_code']);
    });

    it('follows renames, label and metadata changes', async () => {
      await engine.patchArtifact(drive, 'art_notes', {
        path: 'archive/old-notes.txt',
        labels: ['archived'],
        metadata: { author: 'carol' },
      });
      expect(await ids('archive')).toEqual(['art_notes']);
      expect(await ids('meeting')).toEqual([]);
      expect(await ids('carol')).toEqual(['art_notes']);
      expect(await ids('database', { prefix: 'archive/' })).toEqual(['art_notes']);
      expect(await ids('database', { labels: ['draft'] })).toEqual([]);
      expect(await ids('database', { labels: ['archived'] })).toEqual(['art_notes']);
    });

    it('never goes back to an older version of a document', async () => {
      const [report] = documents(drive);
      await engine.upsertDocument({ ...report!, versionNumber: 3, preview: 'Third version mentions zeppelins.' });
      await engine.upsertDocument({ ...report!, versionNumber: 2, preview: 'Second version mentions balloons.' });
      expect(await ids('zeppelins')).toEqual(['art_report']);
      expect(await ids('balloons')).toEqual([]);
    });

    it("replaces an artifact's passages as a set", async () => {
      await engine.replacePassages(drive, 'art_report', 3, [
        {
          ord: 0,
          text: 'Only one passage about zeppelins now.',
          modality: 'text',
          charStart: 0,
          charEnd: 37,
          embedding: null,
        },
      ]);
      const hits = await engine.findLexical(drive, 'zeppelins OR running', { limit: 10 });
      expect(hits.map((h) => `${h.artId}#${h.ord}`)).toEqual(['art_report#0']);
      expect(hits[0]!.versionNumber).toBe(3);
    });

    it('a passage without a vector: listed, counted in scope, skipped by the semantic leg until it gets one', async () => {
      // art_report's passage of version 3 (the test above) was stored without one.
      expect(await engine.passagesAwaitingVectors([{ driveId: drive, artId: 'art_report' }])).toEqual([
        {
          driveId: drive,
          artId: 'art_report',
          versionNumber: 3,
          ord: 0,
          text: 'Only one passage about zeppelins now.',
        },
      ]);
      expect(await engine.countAwaitingVectors(drive, { excludePrefix: '_wiki/' }, 100)).toBe(1);
      expect(await engine.countAwaitingVectors(drive, { prefix: 'docs/' }, 100)).toBe(0);
      expect(await engine.countAwaitingVectors(other, {}, 100)).toBe(0);
      const near = async () =>
        (await engine.findSemantic(drive, { vector: unit([0, 1, 1]), q: 'x' }, { limit: 10 })).map((h) => h.artId);
      expect(await near()).not.toContain('art_report');
      // Another version's vector is not this one's: left as it is.
      await engine.setPassageVectors([
        { driveId: drive, artId: 'art_report', versionNumber: 2, ord: 0, embedding: unit([0, 1, 1]) },
      ]);
      expect(await engine.countAwaitingVectors(drive, {}, 100)).toBe(1);
      await engine.setPassageVectors([
        { driveId: drive, artId: 'art_report', versionNumber: 3, ord: 0, embedding: unit([0, 1, 1]) },
      ]);
      expect(await engine.countAwaitingVectors(drive, {}, 100)).toBe(0);
      expect(await engine.passagesAwaitingVectors([{ driveId: drive, artId: 'art_report' }])).toEqual([]);
      expect((await near())[0]).toBe('art_report');
    });

    it('removes an artifact with its passages', async () => {
      await engine.removeArtifact(drive, 'art_pdf');
      expect(await ids('handbook')).toEqual([]);
      expect((await engine.findLexical(drive, 'handbook', { limit: 10 })).length).toBe(0);
      expect(
        (await engine.findSemantic(drive, { vector: unit([0.9, 0.1, 0]), q: 'x' }, { limit: 10 })).map((h) => h.artId),
      ).not.toContain('art_pdf');
    });
  });
}
