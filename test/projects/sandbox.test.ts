import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { sqlOn, useTestApi, type DriveClient } from '../artifacts/client.js';
import type { TestApi } from '../helpers/api.js';
import { hasLatex } from '../helpers/tex.js';
import { makeProject, TERMINAL, waitFor } from './helpers.js';

let api: TestApi;
let d: DriveClient;
useTestApi({ COMPILE_TIMEOUT_S: '30' }, (a, c) => {
  api = a;
  d = c;
});

// Writes 1 KB lines to one file forever: without a file-size cap it fills the scratch disk until the time limit.
const FILL = String.raw`\documentclass{article}
\newwrite\out \immediate\openout\out=fill.txt
\def\line{xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx}
\def\kb{\line\line\line\line\line\line\line\line\line\line}
\def\loop{\immediate\write\out{\kb}\loop}
\begin{document}\loop\end{document}
`;

describe('the compile sandbox', () => {
  it.skipIf(!hasLatex())(
    'a write loop meets the per-file cap and fails before its time limit; a root worker runs it as nobody',
    async () => {
      const fld = await makeProject(d, 'fill', { 'main.tex': FILL });
      const job = (await d.call('POST', `/v0/projects/${fld}/jobs`, { json: { options: { entrypoint: 'main.tex' } } }))
        .json;
      const running = await waitFor(
        async () =>
          (
            (await sqlOn(api, `select status, runner from compile_jobs where id = ?`, [job.job_id])) as {
              status: string;
              runner: { pid: number } | null;
            }[]
          )[0]!,
        (r) => r.runner !== null || TERMINAL.includes(r.status),
        30_000,
        50,
      );
      if (process.getuid?.() === 0 && running.runner) {
        const status = (() => {
          try {
            return readFileSync(`/proc/${running.runner.pid}/status`, 'utf8');
          } catch {
            return undefined; // already ended
          }
        })();
        if (status) expect(status).toMatch(/^Uid:\s+65534\s/m);
      }
      const ended = await waitFor(
        async () => (await d.get(`/v0/jobs/${job.job_id}`)).json,
        (j) => TERMINAL.includes(j.status),
        60_000,
        300,
      );
      // Failed on the file cap (256 MB at about 1 KB a write), not timed out at 30 s.
      expect(ended.status).toBe('failed');
    },
    90_000,
  );

  it.skipIf(process.getuid?.() !== 0)('the object store is not readable by the account engines run as', () => {
    expect(statSync(path.join(process.env.DATA_DIR!, 's3')).mode & 0o777).toBe(0o700);
  });

  it('a Typst project cannot read outside its folder', async () => {
    const fld = await makeProject(d, 'escape', { 'main.typ': '#read("/etc/hostname")\n' });
    const j = (
      await d.call('POST', `/v0/projects/${fld}/jobs`, { json: { options: { entrypoint: 'main.typ', wait: true } } })
    ).json;
    expect(j.status).toBe('failed');
  });
});
