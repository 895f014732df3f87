import { describe, expect, it } from 'vitest';
import { enqueueAutoCompile } from '../../src/projects/auto-compile.js';
import { transaction } from '../../src/db/sql.js';
import { enqueue, outboxItemsFor } from '../../src/outbox/outbox.js';
import type { TestApi } from '../helpers/api.js';
import { driveClient, useTestApi, type DriveClient } from '../artifacts/client.js';
import { MAIN_TEX, makeProject, png, TERMINAL, waitFor } from './helpers.js';
import { hasLatex } from '../helpers/tex.js';

let api: TestApi;
let d: DriveClient;
useTestApi({ COMPILE_DEBOUNCE_MS: '1500' }, (a, c) => {
  api = a;
  d = c;
});

const jobs = async (fld: string) =>
  (await d.get(`/v0/projects/${fld}/jobs`)).json.items as { job_id: string; status: string; trigger: string }[];

describe('auto_compile', () => {
  it.skipIf(!hasLatex())(
    'a burst of 10 writes under the project yields exactly one job; its own PDF does not trigger another',
    async () => {
      const fld = await makeProject(d, 'auto', { 'sec/intro.tex': 'Kangaroo start.\n', 'fig.png': png() });
      const off = await makeProject(d, 'manual', {});
      await d.call('PUT', `/v0/projects/${off}`, { json: { entrypoint: 'main.tex' } });
      await d.call('PUT', `/v0/projects/${fld}`, { json: { entrypoint: 'main.tex', auto_compile: true } });
      await d.put('manual/main.tex', MAIN_TEX);
      for (let i = 0; i < 10; i++) {
        await d.put(i === 0 ? 'auto/main.tex' : 'auto/sec/intro.tex', i === 0 ? MAIN_TEX : `Kangaroo draft ${i}.\n`);
      }
      const [only] = await waitFor(
        () => jobs(fld),
        (js) => js.length > 0 && TERMINAL.includes(js[0]!.status),
        60_000,
        300,
      );
      expect(only).toMatchObject({ status: 'succeeded', trigger: 'auto_compile' });
      const j = (await d.get(`/v0/jobs/${only!.job_id}`)).json;
      expect(j.inputs.find((f: { path: string }) => f.path === 'auto/sec/intro.tex').version_number).toBe(10);
      // Quiet for more than two debounce periods after the PDF was written: still exactly one job.
      await new Promise((r) => setTimeout(r, 4000));
      expect(await jobs(fld)).toHaveLength(1);
      expect(await jobs(off)).toHaveLength(0);
      // A write outside any project folder enqueues nothing.
      await d.put('elsewhere/x.tex', 'x');
      expect(await jobs(fld)).toHaveLength(1);
    },
  );

  it('a retried enqueue of one debouncer round returns the same job; a project without auto_compile enqueues none', async () => {
    const fld = await makeProject(d, 'retry', { 'main.tex': MAIN_TEX });
    await d.call('PUT', `/v0/projects/${fld}`, { json: { entrypoint: 'main.tex', auto_compile: true } });
    const a = await enqueueAutoCompile(api.ctx, d.driveId, fld, `test/${fld}/0`);
    const b = await enqueueAutoCompile(api.ctx, d.driveId, fld, `test/${fld}/0`);
    expect(a?.id).toMatch(/^job_/);
    expect(b?.id).toBe(a?.id);
    await d.call('PUT', `/v0/projects/${fld}`, { json: { entrypoint: 'main.tex', auto_compile: false } });
    expect(await enqueueAutoCompile(api.ctx, d.driveId, fld, `test/${fld}/1`)).toBeNull();
    await waitFor(
      () => jobs(fld),
      (js) => js.length === 1 && TERMINAL.includes(js[0]!.status),
      60_000,
      300,
    );
  });

  it('compile requests: only for changes that alter what a compile reads, with the paths touched, and only on drives with an auto-compile project', () => {
    const change = (action: string, metadata: Record<string, unknown>) =>
      outboxItemsFor(['search', 'compile'], { driveId: 'drv_a', artId: 'art_a', action, eventId: null, metadata });
    expect(change('artifact.renamed', { path: 'book/b.tex', from: 'book/a.tex', to: 'book/b.tex' })).toEqual([
      { topic: 'search', driveId: 'drv_a', artId: 'art_a', op: 'record', paths: ['book/b.tex', 'book/a.tex'] },
      { topic: 'compile', driveId: 'drv_a', artId: 'art_a', op: 'record', paths: ['book/b.tex', 'book/a.tex'] },
    ]);
    // Labels and metadata change nothing a compile reads.
    expect(change('artifact.metadata_updated', { path: 'book/b.tex', labels: ['x'] }).map((i) => i.topic)).toEqual([
      'search',
    ]);
  });

  it("the compile topic's filter runs in the queueing statement: a drive without an auto-compile project gets no row", async () => {
    const plain = await driveClient(api);
    const fld = await makeProject(d, 'filtered', { 'main.tex': MAIN_TEX });
    await d.call('PUT', `/v0/projects/${fld}`, { json: { entrypoint: 'main.tex', auto_compile: true } });
    const rolledBack = new Error('roll back');
    // Read inside the transaction (the worker never sees uncommitted rows), then roll back.
    const seen = await transaction({ orm: api.ctx.orm }, async (tx) => {
      await enqueue(
        tx,
        [plain.driveId, d.driveId].map((driveId) => ({
          topic: 'compile' as const,
          driveId,
          artId: 'art_filter',
          op: 'content' as const,
          paths: ['filtered/main.tex'],
        })),
      );
      const rows = await tx.execute(`select drive_id, paths from outbox where art_id = 'art_filter'`);
      throw Object.assign(rolledBack, { rows });
    }).catch((err: Error & { rows?: unknown }) => err.rows);
    expect(seen).toEqual([{ drive_id: d.driveId, paths: ['filtered/main.tex'] }]);
    await d.call('PUT', `/v0/projects/${fld}`, { json: { entrypoint: 'main.tex', auto_compile: false } });
  });
});
