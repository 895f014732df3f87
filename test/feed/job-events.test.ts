import { describe, expect, it } from 'vitest';
import { useTestApi, type DriveClient } from '../artifacts/client.js';
import { makeProject, TERMINAL, waitFor } from '../projects/helpers.js';

let d: DriveClient;
useTestApi({}, (_a, dc) => {
  d = dc;
});

describe('compile job state changes in the change feed', () => {
  it('records job.queued and each later status as events on the project folder, in seq order', async () => {
    const fld = await makeProject(d, 'jobs-feed', {
      'main.tex': '\\documentclass{article}\\begin{document}x\\end{document}\n',
    });
    const after = (await d.events('?limit=1'))[0].seq as number;
    const job = (await d.call('POST', `/v0/projects/${fld}/jobs`, { json: { options: { entrypoint: 'main.tex' } } }))
      .json;
    const ended = await waitFor(
      async () => (await d.get(`/v0/jobs/${job.job_id}`)).json,
      (j) => TERMINAL.includes(j.status),
      120_000,
    );
    const events = (await d.events(`?after=${after}&prefix=jobs-feed`)).filter((e) => e.action.startsWith('job.'));
    expect(events[0]).toMatchObject({
      action: 'job.queued',
      fld_id: fld,
      metadata: { job_id: job.job_id, path: 'jobs-feed' },
    });
    expect(events.at(-1)).toMatchObject({ action: `job.${ended.status}`, metadata: { job_id: job.job_id } });
    expect(events.map((e) => e.seq)).toEqual([...events.map((e) => e.seq)].sort((x, y) => x - y));
  }, 150_000);
});
