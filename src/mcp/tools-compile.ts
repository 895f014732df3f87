import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { compileAndWait } from '../projects/compile-and-wait.js';
import { getJob, type JobRecord } from '../projects/jobs.js';
import { ENGINES } from '../projects/engine-availability.js';
import { jobOut } from '../shapes/projects.js';
import { jobOutSchema } from '../shapes/project-schemas.js';
import { actorArg, defineTool, READ_ONLY, refArg, writes, type ToolEnv } from './tool-kit.js';

/**
 * Compile tools (REFERENCE: `compile(folder=…, wait=true)`, then `get_compile`): the same operations as
 * /v0/projects/{fld_id}/jobs.
 */

function render(j: ReturnType<typeof jobOut>): string {
  const head = `${j.job_id}  ${j.status}  ${j.engine} ${j.entrypoint}`;
  if (j.status === 'succeeded')
    return `${head}\nPDF: ${j.pdf?.path} v${j.pdf?.version_number} (${j.pdf?.art_id}), ${j.page_count ?? '?'} page(s)`;
  if (j.status === 'queued' || j.status === 'running')
    return `${head}\nstill ${j.status}; call get_compile with job_id ${j.job_id}`;
  const diags = j.diagnostics
    .filter((d) => d.severity === 'error')
    .slice(0, 20)
    .map((d) => `${d.file ?? '?'}:${d.line ?? '?'}: ${d.message}`);
  return [head, j.error ?? '', ...diags].filter(Boolean).join('\n');
}

export function registerCompileTools(server: McpServer, env: ToolEnv): void {
  const { config } = env.app;
  const answer = (row: JobRecord) => {
    const j = jobOut(config, row);
    return { structured: j as unknown as Record<string, unknown>, text: render(j) };
  };

  defineTool(
    server,
    env,
    'compile',
    {
      title: 'Compile a project folder',
      description:
        'Compiles a project folder (LaTeX with latexmk/pdflatex, or Typst) to a PDF written beside the entrypoint. ' +
        'folder is a fld_ id or a folder path; entrypoint and engine default to the project config (PUT /v0/projects/{fld_id}), ' +
        'the engine to the entrypoint extension (.tex, .typ). With wait (default true) it answers when the job ends (or after ' +
        `${config.compile.waitS} s); on failure diagnostics[] name file, line and message; on success pdf and page_count.`,
      input: {
        folder: refArg.describe('fld_ id or folder path of the project'),
        entrypoint: z.string().min(1).max(256).optional().describe('main file relative to the folder, e.g. main.tex'),
        engine: z.enum(ENGINES).optional(),
        wait: z.boolean().default(true),
        actor: actorArg,
      },
      output: jobOutSchema.shape,
      annotations: writes(false, false),
      budget: 'write',
    },
    async (args, rc) => {
      const job = await compileAndWait(
        rc,
        { ref: args.folder },
        { entrypoint: args.entrypoint, engine: args.engine, task: 'compile', wait: args.wait },
      );
      return answer(job);
    },
  );

  defineTool(
    server,
    env,
    'get_compile',
    {
      title: 'Get a compile job',
      description:
        'The state of a compile job started by compile: status (queued, running, succeeded, failed, cancelled, timed_out), ' +
        'diagnostics, the PDF artifact and page count. The full log is at GET /v0/jobs/{job_id}/logs.',
      input: { job_id: z.string().regex(/^job_[0-9a-z]{26}$/) },
      output: jobOutSchema.shape,
      annotations: READ_ONLY,
      budget: 'read',
    },
    async (args, rc) => answer(await getJob(rc, args.job_id)),
  );
}
