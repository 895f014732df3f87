import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnManaged, type ManagedProcess } from '../../scripts/stack/process.js';
import { sqlOn, useTestApi, type DriveClient } from '../artifacts/client.js';
import type { TestApi } from '../helpers/api.js';
import { makeProject, pdfText, TERMINAL, waitFor } from './helpers.js';
import { hasLatex } from '../helpers/tex.js';

// A worker of its own, on a task queue of its own, so this suite can SIGKILL it mid-compile.
const queue = `${process.env.TEMPORAL_TASK_QUEUE ?? 'agent-drive-test'}-killtest`;
let api: TestApi;
let d: DriveClient;
useTestApi({ TEMPORAL_TASK_QUEUE: queue, COMPILE_HEARTBEAT_TIMEOUT_S: '3' }, (a, c) => {
  api = a;
  d = c;
});

const workers: ManagedProcess[] = [];
const startWorker = (n: number) => {
  const w = spawnManaged(`killtest-worker-${n}`, process.execPath, ['--import', 'tsx', path.resolve('src/worker.ts')], {
    logDir: path.resolve(process.env.DATA_DIR ?? '.data', 'logs'),
    env: { ...process.env, TEMPORAL_TASK_QUEUE: queue },
  });
  workers.push(w);
  return w;
};
afterAll(async () => {
  for (const w of workers) await w.stop();
});

// About three seconds of TeX work, then a page.
const SLOW =
  '\\documentclass{article}\n\\begin{document}\n\\newcount\\n\n\\loop\\advance\\n by 1 \\ifnum\\n<15000000 \\repeat\nSurvivor page \\the\\n.\n\\end{document}\n';

describe.skipIf(!hasLatex())('a worker killed mid-compile', () => {
  it('the job is retried on the restarted worker and ends in a recorded state', async () => {
    const first = startWorker(1);
    const fld = await makeProject(d, 'killed', { 'main.tex': SLOW });
    const j = (await d.call('POST', `/v0/projects/${fld}/jobs`, { json: { options: { entrypoint: 'main.tex' } } }))
      .json;
    const running = await waitFor(
      async () =>
        (
          (await sqlOn(api, `select status, attempt, runner from compile_jobs where id = ?`, [j.job_id])) as {
            status: string;
            attempt: number;
            runner: { pid: number } | null;
          }[]
        )[0]!,
      (r) => r.status === 'running' && r.runner !== null,
      60_000,
    );
    expect(running.attempt).toBe(1);
    first.child.kill('SIGKILL');
    await first.exited;
    // Nothing runs the job now: still running, attempt 1.
    expect((await d.get(`/v0/jobs/${j.job_id}`)).json).toMatchObject({ status: 'running', attempt: 1 });

    startWorker(2);
    const ended = await waitFor(
      async () => (await d.get(`/v0/jobs/${j.job_id}`)).json,
      (x) => TERMINAL.includes(x.status),
      90_000,
      300,
    );
    expect(ended).toMatchObject({ status: 'succeeded', attempt: 2 });
    expect(await pdfText((await d.get(`/v0/artifacts/${ended.pdf.art_id}/download`)).bytes)).toContain(
      'Survivor page 15000000',
    );
    // The dead worker's engine was bounded: its process group is gone too.
    const gone = () => {
      try {
        process.kill(-running.runner!.pid, 0);
        return false;
      } catch {
        return true;
      }
    };
    await waitFor(
      async () => gone(),
      (g) => g,
      30_000,
      200,
    );
  }, 180_000);
});
