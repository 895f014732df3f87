import { z } from 'zod';
import { compileAndWait } from '../projects/compile-and-wait.js';
import { getJob, type JobRecord } from '../projects/jobs.js';
import { ENGINES } from '../projects/engine-availability.js';
import { jobOut } from '../shapes/projects.js';
import { actorArg, defineTool, READ_ONLY, refArg, writes, type ToolEnv, type ToolSet } from './tool-kit.js';

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

export function registerCompileTools(server: ToolSet, env: ToolEnv): void {
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
        'Compiles a LaTeX or Typst folder to a PDF beside its entrypoint (default: the ' +
        `project config). wait answers when done (up to ${config.compile.waitS} s): pdf and page_count, or diagnostics.`,
      input: {
        folder: refArg.describe('fld_ id or folder path'),
        entrypoint: z.string().min(1).max(256).optional().describe('relative to folder, e.g. main.tex'),
        engine: z.enum(ENGINES).optional(),
        wait: z.boolean().default(true),
        actor: actorArg,
      },
      annotations: writes(false, false),
      budget: 'write',
      unfenced: true,
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
        'A compile job: status (queued, running, succeeded, failed, cancelled, timed_out), diagnostics, PDF, page count.',
      input: { job_id: z.string().regex(/^job_[0-9a-z]{26}$/) },
      annotations: READ_ONLY,
      budget: 'read',
    },
    async (args, rc) => answer(await getJob(rc, args.job_id)),
  );
}
