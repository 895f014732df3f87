import { afterAll, describe, expect, it } from 'vitest';
import { useTestApi, type DriveClient } from '../artifacts/client.js';
import type { TestApi } from '../helpers/api.js';
import { mcpClient, type McpSession } from '../mcp/helpers.js';
import { MAIN_TEX, makeProject, png } from './helpers.js';
import { hasLatex } from '../helpers/tex.js';

let api: TestApi;
let d: DriveClient;
useTestApi({}, (a, c) => {
  api = a;
  d = c;
});
let mcp: McpSession | undefined;
afterAll(async () => mcp?.close());

describe.skipIf(!hasLatex())('MCP compile and get_compile', () => {
  it('compile(folder, wait) returns the PDF and page count; a failure returns diagnostics; get_compile polls', async () => {
    mcp = await mcpClient(api, d.apiKey);
    const fld = await makeProject(d, 'mcp-paper', {
      'main.tex': MAIN_TEX,
      'sec/intro.tex': 'Bilby notes.\n',
      'fig.png': png(),
    });
    const ok = await mcp.ok<{ job_id: string; status: string; page_count: number; pdf: { path: string } }>('compile', {
      folder: 'mcp-paper',
      entrypoint: 'main.tex',
    });
    expect(ok).toMatchObject({ status: 'succeeded', page_count: 1, pdf: { path: 'mcp-paper/main.pdf' } });
    expect(ok._text).toContain('1 page(s)');
    const again = await mcp.ok<{ job_id: string; status: string }>('get_compile', { job_id: ok.job_id });
    expect(again).toMatchObject({ job_id: ok.job_id, status: 'succeeded' });

    await d.put('mcp-paper/sec/intro.tex', '\\nosuchmacro\n');
    await d.call('PUT', `/v0/projects/${fld}`, { json: { entrypoint: 'main.tex' } });
    const bad = await mcp.ok<{ status: string; diagnostics: unknown[] }>('compile', { folder: fld });
    expect(bad.status).toBe('failed');
    expect(bad.diagnostics).toContainEqual(
      expect.objectContaining({ severity: 'error', file: 'sec/intro.tex', line: 1 }),
    );
    expect(bad._text).toContain('sec/intro.tex:1: Undefined control sequence.');

    const queued = await mcp.ok<{ job_id: string; status: string }>('compile', { folder: fld, wait: false });
    expect(['queued', 'running']).toContain(queued.status);
    expect((await mcp.fail('get_compile', { job_id: 'job_00000000000000000000000000' })).code).toBe('JOB_NOT_FOUND');
    expect((await mcp.fail('compile', { folder: 'no/such/folder' })).code).toBe('NOT_FOUND');
  });

  it('compiles a folder implied by paths (no mkdir), and its errors name its own arguments', async () => {
    mcp ??= await mcpClient(api, d.apiKey);
    const tex = String.raw`\documentclass{article}
\begin{document}
Implied folder.
\end{document}
`;
    await mcp.ok('upload', { path: 'paper2/main.tex', content: tex });
    await mcp.ok('upload', { path: 'paper2/other.tex', content: tex });
    await mcp.ok('upload', { path: 'paper2/main.typ', content: '= Typst too\n' });
    // main.tex beside main.typ: no single entrypoint to infer.
    const noEntry = await mcp.fail('compile', { folder: 'paper2' });
    expect(noEntry).toMatchObject({ code: 'INVALID_ENTRYPOINT', argument: 'entrypoint' });
    expect(noEntry.message).not.toContain('options.');
    const ok = await mcp.ok<{ status: string; pdf: { path: string } }>('compile', {
      folder: 'paper2',
      entrypoint: 'main.tex',
    });
    expect(ok).toMatchObject({ status: 'succeeded', pdf: { path: 'paper2/main.pdf' } });
    expect(await mcp.ok('lookup', { ref: 'paper2/' })).toMatchObject({ kind: 'folder' });
  });
});
