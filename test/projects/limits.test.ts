import { describe, expect, it } from 'vitest';
import { useTestApi, type DriveClient } from '../artifacts/client.js';
import { makeProject, TERMINAL, waitFor } from './helpers.js';
import { hasLatex } from '../helpers/tex.js';

// The engine's wall-clock limit is fixed at enqueue time from the API's COMPILE_TIMEOUT_S.
let d: DriveClient;
useTestApi({ COMPILE_TIMEOUT_S: '3' }, (_a, c) => {
  d = c;
});

const LOOP = '\\documentclass{article}\n\\begin{document}\n\\def\\x{\\x}\\x\n\\end{document}\n';
const job = async (id: string) => (await d.get(`/v0/jobs/${id}`)).json;

describe.skipIf(!hasLatex())('compile limits', () => {
  it('a compile past the time limit ends timed_out (distinct from cancelled); a queued job cancels at once and never runs', async () => {
    const fld = await makeProject(d, 'slow', { 'main.tex': LOOP });
    const enqueue = async () =>
      (await d.call('POST', `/v0/projects/${fld}/jobs`, { json: { options: { entrypoint: 'main.tex' } } })).json;
    // Two loops fill the worker's compile slots (COMPILE_CONCURRENCY=2), so the third waits queued.
    const [a, b] = [await enqueue(), await enqueue()];
    const c = await enqueue();
    const cancelled = await d.call('POST', `/v0/jobs/${c.job_id}/cancel`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.json).toMatchObject({ status: 'cancelled', cancel_requested: true, started_at: null });

    for (const id of [a.job_id, b.job_id]) {
      const ended = await waitFor(
        () => job(id),
        (j) => TERMINAL.includes(j.status),
        40_000,
      );
      expect(ended.status).toBe('timed_out');
      expect(ended.error).toMatch(/3-second limit/);
      expect(ended.outputs).toEqual([]);
    }
    const never = await job(c.job_id);
    expect(never).toMatchObject({ status: 'cancelled', started_at: null, attempt: 0 });
  });
});
