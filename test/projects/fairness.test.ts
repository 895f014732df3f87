import { describe, expect, it } from 'vitest';
import type { TestApi } from '../helpers/api.js';
import { driveClient, useTestApi, type DriveClient } from '../artifacts/client.js';
import { hasLatex } from '../helpers/tex.js';
import { makeProject, TERMINAL, waitFor } from './helpers.js';

let api: TestApi;
let d: DriveClient;
useTestApi({ COMPILE_TIMEOUT_S: '60', COMPILE_OPEN_PER_DRIVE: '3' }, (a, c) => {
  api = a;
  d = c;
});

const LOOP = '\\documentclass{article}\n\\begin{document}\n\\def\\x{\\x}\\x\n\\end{document}\n';

describe('fair compile scheduling', () => {
  it.skipIf(!hasLatex())(
    "one drive's endless jobs hold one running place; another drive's job starts and ends meanwhile; past the open-job bound, 429",
    async () => {
      const fld = await makeProject(d, 'endless', { 'main.tex': LOOP });
      const enqueue = async (client: DriveClient, id: string, options: Record<string, unknown> = {}) =>
        client.call('POST', `/v0/projects/${id}/jobs`, { json: { options: { entrypoint: 'main.tex', ...options } } });
      const a1 = (await enqueue(d, fld)).json;
      const a2 = (await enqueue(d, fld)).json;
      await waitFor(
        async () => (await d.get(`/v0/jobs/${a1.job_id}`)).json,
        (j) => j.status === 'running',
        30_000,
        200,
      );

      const other = await driveClient(api);
      const small = await makeProject(other, 'small', { 'main.typ': 'One line.\n' });
      const b = (
        await other.call('POST', `/v0/projects/${small}/jobs`, {
          json: { options: { entrypoint: 'main.typ', wait: true } },
        })
      ).json;
      expect(b.status).toBe('succeeded');
      // The first drive's second job is still waiting for its drive's running place, holding no slot.
      expect((await d.get(`/v0/jobs/${a2.job_id}`)).json.status).toBe('queued');

      // Three open jobs is this drive's bound: the fourth is refused at once with Retry-After.
      const a3 = (await enqueue(d, fld)).json;
      const over = await enqueue(d, fld);
      expect([over.status, over.code]).toEqual([429, 'RATE_LIMITED']);
      expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);

      for (const j of [a1, a2, a3]) await d.call('POST', `/v0/jobs/${j.job_id}/cancel`);
      for (const j of [a1, a2, a3])
        await waitFor(
          async () => (await d.get(`/v0/jobs/${j.job_id}`)).json,
          (x) => TERMINAL.includes(x.status),
          30_000,
          300,
        );
    },
  );
});
