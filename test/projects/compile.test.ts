import { describe, expect, it } from 'vitest';
import type { TestApi } from '../helpers/api.js';
import { driveClient, sqlOn, useTestApi, type DriveClient } from '../artifacts/client.js';
import { liveGroupMembers, MAIN_TEX, makeProject, pdfText, png, TERMINAL, waitFor } from './helpers.js';
import { hasLatex } from '../helpers/tex.js';

let api: TestApi;
let d: DriveClient;
useTestApi({ COMPILE_TIMEOUT_S: '20' }, (a, c) => {
  api = a;
  d = c;
});

const job = async (id: string) => (await d.get(`/v0/jobs/${id}`)).json;
const untilEnded = (id: string, ms = 90_000) =>
  waitFor(
    () => job(id),
    (j) => TERMINAL.includes(j.status),
    ms,
  );

describe('projects and compile jobs', () => {
  it('PUT/GET project config; validation; 404 for another drive and for a folder without config', async () => {
    const fld = await makeProject(d, 'cfg', {});
    expect((await d.get(`/v0/projects/${fld}`)).code).toBe('PROJECT_NOT_FOUND');
    const missing = await d.call('PUT', `/v0/projects/${fld}`, { json: { engine: 'latex' } });
    expect(missing.status).toBe(422);
    expect(
      (await d.call('PUT', `/v0/projects/${fld}`, { json: { entrypoint: 'main.tex', engine: 'word' } })).status,
    ).toBe(422);
    expect((await d.call('PUT', `/v0/projects/${fld}`, { json: { entrypoint: 'notes.md' } })).code).toBe(
      'INVALID_ENTRYPOINT',
    );
    expect((await d.call('PUT', `/v0/projects/${fld}`, { json: { entrypoint: '../x.tex' } })).code).toBe(
      'INVALID_ENTRYPOINT',
    );
    const put = await d.call('PUT', `/v0/projects/${fld}`, { json: { entrypoint: 'main.tex', auto_compile: true } });
    expect(put.status).toBe(200);
    expect(put.json).toMatchObject({
      fld_id: fld,
      path: '/cfg/',
      entrypoint: 'main.tex',
      engine: null,
      auto_compile: true,
    });
    const again = await d.call('PUT', `/v0/projects/${fld}`, { json: { entrypoint: 'doc.typ', engine: 'typst' } });
    expect(again.json).toMatchObject({ entrypoint: 'doc.typ', engine: 'typst', auto_compile: false });
    expect((await d.get(`/v0/projects/${fld}`)).json).toEqual(again.json);
    const other = await driveClient(api);
    expect((await other.get(`/v0/projects/${fld}`)).code).toBe('PROJECT_NOT_FOUND');
    expect((await other.call('POST', `/v0/projects/${fld}/jobs`, { json: {} })).code).toBe('PROJECT_NOT_FOUND');
  });

  it.skipIf(!hasLatex())(
    'a LaTeX project with \\input and an image compiles to a PDF artifact beside the entrypoint, with source refs and a log',
    async () => {
      const fld = await makeProject(d, 'paper', {
        'main.tex': MAIN_TEX,
        'sec/intro.tex': 'Marsupial introduction text.\n',
        'fig.png': png(),
      });
      await d.call('PUT', `/v0/projects/${fld}`, { json: { entrypoint: 'main.tex' } });
      const res = await d.call('POST', `/v0/projects/${fld}/jobs`, {
        json: { options: { wait: true } },
        headers: { 'x-drive-actor': 'writer' },
      });
      expect(res.status).toBe(200);
      const j = res.json;
      expect(j).toMatchObject({
        status: 'succeeded',
        engine: 'latex',
        task: 'latex.compile',
        entrypoint: 'main.tex',
        trigger: 'api',
        page_count: 1,
        error: null,
      });
      expect(j.job_id).toMatch(/^job_[0-9a-z]{26}$/);
      expect(j.workflow_id).toBe(`compile-${j.job_id}`);
      expect(j.inputs.map((f: { path: string }) => f.path)).toEqual([
        'paper/fig.png',
        'paper/main.tex',
        'paper/sec/intro.tex',
      ]);
      expect(j.outputs).toHaveLength(1);
      expect(j.pdf).toMatchObject({ path: 'paper/main.pdf', version_number: 1 });

      const meta = await d.get(`/v0/artifacts/${j.pdf.art_id}`);
      expect(meta.json).toMatchObject({ path: 'paper/main.pdf', content_type: 'application/pdf' });
      expect(meta.json.source.refs[0]).toEqual({ type: 'compile_job', id: j.job_id });
      expect(meta.json.source.refs.slice(1)).toEqual(
        j.inputs.map((f: { art_id: string; path: string; version_number: number }) => ({
          type: 'artifact',
          id: f.art_id,
          metadata: { path: f.path, version_number: 1 },
        })),
      );
      const text = await pdfText((await d.get(`/v0/artifacts/${j.pdf.art_id}/download`)).bytes);
      expect(text).toContain('Hello Quokka world');
      expect(text).toContain('Marsupial introduction text');

      const log = await d.get(`/v0/jobs/${j.job_id}/logs`);
      expect(log.status).toBe(200);
      expect(log.headers.get('content-type')).toMatch(/^text\/plain/);
      expect(log.bytes.toString()).toContain('Output written on main.pdf (1 page');

      // Recompiling after an edit writes version 2 of the PDF; the list is newest first and filters by status.
      await d.put('paper/sec/intro.tex', 'Wombat second edition.\n');
      const second = (
        await d.call('POST', `/v0/projects/${fld}/jobs`, { json: { task: 'latex.compile', options: { wait: true } } })
      ).json;
      expect(second).toMatchObject({ status: 'succeeded', pdf: { art_id: j.pdf.art_id, version_number: 2 } });
      expect(second.inputs.find((f: { path: string }) => f.path === 'paper/sec/intro.tex').version_number).toBe(2);
      expect(await pdfText((await d.get(`/v0/artifacts/${j.pdf.art_id}/download`)).bytes)).toContain(
        'Wombat second edition',
      );
      const list = await d.get(`/v0/projects/${fld}/jobs`);
      expect(list.json.items.map((x: { job_id: string }) => x.job_id)).toEqual([second.job_id, j.job_id]);
      expect((await d.get(`/v0/projects/${fld}/jobs?status=failed`)).json.items).toEqual([]);
      expect((await d.get(`/v0/projects/${fld}/jobs?limit=1`)).json.items).toHaveLength(1);
      expect((await d.get(`/v0/projects/${fld}/jobs?limit=201`)).status).toBe(422);
      expect((await d.get(`/v0/projects/${fld}/jobs?status=done`)).status).toBe(422);
      // The written PDF is the only change, and cancelling an ended job is 409.
      expect((await d.call('POST', `/v0/jobs/${j.job_id}/cancel`)).code).toBe('JOB_NOT_CANCELLABLE');
      const other = await driveClient(api);
      expect((await other.get(`/v0/jobs/${j.job_id}`)).code).toBe('JOB_NOT_FOUND');
      expect((await other.get(`/v0/jobs/${j.job_id}/logs`)).code).toBe('JOB_NOT_FOUND');
    },
  );

  it.skipIf(!hasLatex())('a broken project fails with a diagnostic naming the file and line', async () => {
    const fld = await makeProject(d, 'broken', {
      'main.tex': MAIN_TEX,
      'sec/intro.tex': 'Line one.\n\n\\undefinedmacro here\n',
      'fig.png': png(),
    });
    const j = (
      await d.call('POST', `/v0/projects/${fld}/jobs`, { json: { options: { entrypoint: 'main.tex', wait: true } } })
    ).json;
    expect(j.status).toBe('failed');
    expect(j.outputs).toEqual([]);
    expect(j.diagnostics).toContainEqual({
      severity: 'error',
      file: 'sec/intro.tex',
      line: 3,
      message: 'Undefined control sequence.',
    });
    expect((await d.get(`/v0/jobs/${j.job_id}/logs`)).bytes.toString()).toContain('Undefined control sequence');
    expect((await d.get('/v0/artifacts/broken/main.pdf/meta')).status).toBe(404);
    // A warning is attributed to the file TeX had open.
    const warn = await makeProject(d, 'warn', {
      'main.tex': '\\documentclass{article}\n\\begin{document}\n\\input{part}\n\\end{document}\n',
      'part.tex': 'See \\ref{nowhere}.\n',
    });
    const w = (
      await d.call('POST', `/v0/projects/${warn}/jobs`, { json: { options: { entrypoint: 'main.tex', wait: true } } })
    ).json;
    expect(w.status).toBe('succeeded');
    expect(w.diagnostics).toContainEqual(expect.objectContaining({ severity: 'warning', file: 'part.tex', line: 1 }));
  });

  it.skipIf(!hasLatex())(
    'a running compile (a TeX loop) is cancelled: state cancelled, process group gone, workflow cancelled',
    async () => {
      const fld = await makeProject(d, 'loop', {
        'main.tex': '\\documentclass{article}\n\\begin{document}\n\\def\\x{\\x}\\x\n\\end{document}\n',
      });
      const j = (await d.call('POST', `/v0/projects/${fld}/jobs`, { json: { options: { entrypoint: 'main.tex' } } }))
        .json;
      expect(j.status).toBe('queued');
      const runner = await waitFor(
        async () =>
          (
            (await sqlOn(api, `select status, runner from compile_jobs where id = ?`, [j.job_id])) as {
              status: string;
              runner: { pid: number } | null;
            }[]
          )[0]!,
        (r) => r.status === 'running' && r.runner !== null,
      );
      const pgid = runner.runner!.pid;
      await waitFor(
        async () => liveGroupMembers(pgid).length,
        (n) => n >= 2,
        10_000,
        100,
      ); // bash→timeout→latexmk→pdflatex
      const c = await d.call('POST', `/v0/jobs/${j.job_id}/cancel`);
      expect(c.status).toBe(200);
      expect(c.json).toMatchObject({ cancel_requested: true });
      const ended = await untilEnded(j.job_id, 20_000);
      expect(ended.status).toBe('cancelled');
      expect(liveGroupMembers(pgid)).toEqual([]);
      // Killed members may linger as zombies until init reaps them; then the group is gone entirely.
      const gone = () => {
        try {
          process.kill(-pgid, 0);
          return false;
        } catch {
          return true;
        }
      };
      await waitFor(
        async () => gone(),
        (g) => g,
        10_000,
        100,
      );
      const desc = await waitFor(
        () => api.ctx.temporal.workflow.getHandle(`compile-${j.job_id}`).describe(),
        (x) => x.status.name !== 'RUNNING',
        10_000,
      );
      expect(desc.status.name).toBe('CANCELLED');
      // Cancelling again returns the cancelled job.
      expect((await d.call('POST', `/v0/jobs/${j.job_id}/cancel`)).json.status).toBe('cancelled');
    },
  );

  it('a Typst project compiles too (engine by extension), and a Typst error names file and line', async () => {
    const fld = await makeProject(d, 'typ', {
      'main.typ': '#set page(width: 12cm, height: auto)\n= Platypus Report\n#include "part.typ"\n',
      'part.typ': 'Echidna findings are here.\n',
    });
    await d.call('PUT', `/v0/projects/${fld}`, { json: { entrypoint: 'main.typ' } });
    const j = (await d.call('POST', `/v0/projects/${fld}/jobs`, { json: { options: { wait: true } } })).json;
    expect(j).toMatchObject({ status: 'succeeded', engine: 'typst', pdf: { path: 'typ/main.pdf' }, page_count: 1 });
    const text = await pdfText((await d.get(`/v0/artifacts/${j.pdf.art_id}/download`)).bytes);
    expect(text).toContain('Platypus Report');
    expect(text).toContain('Echidna findings');
    await d.put('typ/part.typ', 'fine\n#let x = \n');
    const bad = (await d.call('POST', `/v0/projects/${fld}/jobs`, { json: { options: { wait: true } } })).json;
    expect(bad.status).toBe('failed');
    expect(bad.diagnostics).toContainEqual(expect.objectContaining({ severity: 'error', file: 'part.typ', line: 2 }));
  });
});

describe('projects shared through grants', () => {
  it('a viewer of the folder reads the config and the jobs; only the owner (or a manager) configures, compiles and cancels', async () => {
    const other = await driveClient(api);
    const fld = await makeProject(d, 'shared', { 'main.typ': 'Shared.\n' });
    await d.call('PUT', `/v0/projects/${fld}`, { json: { entrypoint: 'main.typ' } });
    const j = (await d.call('POST', `/v0/projects/${fld}/jobs`, { json: { options: { wait: true } } })).json;
    expect(j.status).toBe('succeeded');
    expect((await other.get(`/v0/jobs/${j.job_id}`)).code).toBe('JOB_NOT_FOUND');
    const me = (await other.get('/v0/drives/me')).json;
    const g = await d.call('POST', '/v0/grants', {
      json: { resource: fld, principal: { type: 'user', email: me.email }, role: 'viewer' },
    });
    expect(g.status).toBe(201);
    expect((await other.get(`/v0/projects/${fld}`)).json).toMatchObject({ fld_id: fld, entrypoint: 'main.typ' });
    expect((await other.get(`/v0/projects/${fld}/jobs`)).json.items.map((x: { job_id: string }) => x.job_id)).toEqual([
      j.job_id,
    ]);
    expect((await other.get(`/v0/jobs/${j.job_id}`)).json.status).toBe('succeeded');
    expect((await other.get(`/v0/jobs/${j.job_id}/logs`)).status).toBe(200);
    expect((await other.call('POST', `/v0/projects/${fld}/jobs`, { json: {} })).code).toBe('PERMISSION_DENIED');
    expect((await other.call('PUT', `/v0/projects/${fld}`, { json: { entrypoint: 'x.tex' } })).code).toBe(
      'PERMISSION_DENIED',
    );
    expect((await other.call('POST', `/v0/jobs/${j.job_id}/cancel`)).code).toBe('PERMISSION_DENIED');
  });
});
