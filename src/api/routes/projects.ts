import type { Router } from 'express';
import { z } from 'zod';
import type { AppContext } from '../../platform/context.js';
import { compileAndWait } from '../../projects/compile-and-wait.js';
import { cancelJob, getJob, jobLog, listJobs } from '../../projects/jobs.js';
import { getProject, putProject } from '../../projects/projects.js';
import { jobOut, projectOut } from '../../shapes/projects.js';
import { requestContextOf } from '../http/auth-context.js';
import { route, RouteRegistry } from '../http/route.js';
import { actorHeader, idOf, limitParam } from '../../shapes/artifact-schemas.js';
import {
  compileJobInSchema,
  jobListSchema,
  jobOutSchema,
  jobStatusSchema,
  projectConfigInSchema,
  projectOutSchema,
} from '../../shapes/project-schemas.js';

/** Projects and compile jobs (spec 4.9). */
const tags = ['projects'];
const fldParams = z.object({ fld_id: idOf('fld') });
const jobParams = z.object({ job_id: idOf('job') });
const headers = z.object({ 'x-drive-actor': actorHeader });

export function projectsRouter(routes: RouteRegistry, ctx: AppContext): Router {
  const router = routes.router();
  const rc = (req: Parameters<typeof requestContextOf>[1]) => requestContextOf(ctx, req);

  route(
    router,
    {
      method: 'put',
      path: '/v0/projects/:fld_id',
      summary: "Set a folder's compile config (ProjectConfigIn)",
      tags,
      auth: true,
      params: fldParams,
      body: projectConfigInSchema,
      headers,
      responses: { 200: { description: 'project config', schema: projectOutSchema } },
    },
    async ({ params, body, req }) =>
      projectOut(
        await putProject(rc(req), params.fld_id, {
          entrypoint: body.entrypoint,
          engine: body.engine,
          autoCompile: body.auto_compile,
        }),
      ),
  );

  route(
    router,
    {
      method: 'get',
      path: '/v0/projects/:fld_id',
      summary: "Get a project's compile config",
      tags,
      auth: true,
      params: fldParams,
      responses: { 200: { description: 'project config', schema: projectOutSchema } },
    },
    async ({ params, req }) => projectOut(await getProject(rc(req), params.fld_id)),
  );

  route(
    router,
    {
      method: 'post',
      path: '/v0/projects/:fld_id/jobs',
      summary: 'Enqueue a compile job (CompileJobIn)',
      tags,
      auth: true,
      params: fldParams,
      body: compileJobInSchema,
      headers,
      responses: {
        200: { description: 'the job (ended, with options.wait, unless the wait ran out)', schema: jobOutSchema },
      },
    },
    async ({ params, body, req }) => {
      const job = await compileAndWait(
        rc(req),
        { fldId: params.fld_id },
        { task: body.task, entrypoint: body.options.entrypoint, engine: body.options.engine, wait: body.options.wait },
      );
      return jobOut(ctx.config, job);
    },
  );

  route(
    router,
    {
      method: 'get',
      path: '/v0/projects/:fld_id/jobs',
      summary: "A project's compile jobs, newest first",
      tags,
      auth: true,
      params: fldParams,
      query: z.object({ status: jobStatusSchema.optional(), limit: limitParam(200, 50) }),
      responses: { 200: { description: 'job list', schema: jobListSchema } },
    },
    async ({ params, query, req }) => ({
      items: (await listJobs(rc(req), params.fld_id, query)).map((j) => jobOut(ctx.config, j)),
    }),
  );

  route(
    router,
    {
      method: 'get',
      path: '/v0/jobs/:job_id',
      summary: 'Poll a compile job',
      tags,
      auth: true,
      params: jobParams,
      responses: { 200: { description: 'job', schema: jobOutSchema } },
    },
    async ({ params, req }) => jobOut(ctx.config, await getJob(rc(req), params.job_id)),
  );

  route(
    router,
    {
      method: 'get',
      path: '/v0/jobs/:job_id/logs',
      summary: "A compile job's engine log",
      tags,
      auth: true,
      params: jobParams,
      responses: { 200: { description: 'raw compile log', contentType: 'text/plain' } },
    },
    async ({ params, req, res }) => {
      const log = await jobLog(rc(req), params.job_id);
      res.status(200).type('text/plain; charset=utf-8').send(log);
    },
  );

  route(
    router,
    {
      method: 'post',
      path: '/v0/jobs/:job_id/cancel',
      summary: 'Cancel a queued or running compile job',
      tags,
      auth: true,
      params: jobParams,
      headers,
      responses: {
        200: {
          description: 'job (cancelled, or running with cancel_requested until the engine is gone)',
          schema: jobOutSchema,
        },
      },
    },
    async ({ params, req }) => jobOut(ctx.config, await cancelJob(rc(req), params.job_id)),
  );

  return router;
}
