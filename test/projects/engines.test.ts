import { describe, expect, it } from 'vitest';
import { engineStatuses, engineSummary } from '../../src/projects/engine-availability.js';
import { useTestApi, type DriveClient } from '../artifacts/client.js';
import { MAIN_TEX, makeProject } from './helpers.js';

// An API whose compile engines are looked up on a PATH without TeX Live: LaTeX is "not installed" here.
const NO_TEX_PATH = '/nonexistent-tex-bin';
let d: DriveClient;
useTestApi({ COMPILE_PATH: NO_TEX_PATH }, (_a, c) => {
  d = c;
});

describe('compile engines discovered at start', () => {
  it('the summary names each engine and, for a missing LaTeX, what to install', () => {
    expect(engineStatuses(NO_TEX_PATH).latex).toMatchObject({
      available: false,
      missing: expect.stringContaining('latexmk and pdflatex not found'),
    });
    expect(engineStatuses(NO_TEX_PATH).typst.available).toBe(true);
    expect(engineSummary(NO_TEX_PATH)).toMatch(
      /^compile engines: latex ✗ \(install: apt-get install --no-install-recommends latexmk texlive-latex-base .*\)  typst ✓$/,
    );
  });

  it('a LaTeX job on a server without TeX Live ends failed at once with ENGINE_UNAVAILABLE; the config says so; Typst still runs', async () => {
    const fld = await makeProject(d, 'notex', { 'main.tex': MAIN_TEX, 'doc.typ': 'Typst is here.\n' });
    const cfg = await d.call('PUT', `/v0/projects/${fld}`, { json: { entrypoint: 'main.tex' } });
    expect(cfg.json).toMatchObject({ engine: null, engine_available: false });

    const started = Date.now();
    const job = await d.call('POST', `/v0/projects/${fld}/jobs`, { json: { options: { wait: false } } });
    expect(job.status).toBe(200);
    expect(job.json).toMatchObject({
      status: 'failed',
      engine: 'latex',
      error_code: 'ENGINE_UNAVAILABLE',
      engine_available: false,
    });
    expect(job.json.error).toContain('apt-get install');
    expect(Date.now() - started).toBeLessThan(1000);
    // Polled later, it is the same recorded failure (no workflow ever ran it).
    expect((await d.get(`/v0/jobs/${job.json.job_id}`)).json).toMatchObject({
      status: 'failed',
      error_code: 'ENGINE_UNAVAILABLE',
      started_at: null,
    });

    const typ = await d.call('POST', `/v0/projects/${fld}/jobs`, {
      json: { options: { entrypoint: 'doc.typ', wait: true } },
    });
    expect(typ.json).toMatchObject({ status: 'succeeded', engine: 'typst', error_code: null, engine_available: true });
  });
});
