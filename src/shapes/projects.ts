import type { Config } from '../lib/config.js';
import type { JobRecord } from '../projects/jobs.js';
import type { Project } from '../projects/projects.js';
import { iso } from '../lib/time.js';

/** Public shapes of a project config and a compile job (docs/decisions.md, Projects and compile jobs). */
export function projectOut(p: Project) {
  return {
    fld_id: p.fld_id,
    drive_id: p.drive_id,
    path: `/${p.path}/`,
    entrypoint: p.entrypoint,
    engine: p.engine,
    auto_compile: p.auto_compile,
    engine_available: p.engineAvailable,
    created_at: iso(p.created_at)!,
    updated_at: iso(p.updated_at)!,
  };
}

export function jobOut(config: Config, j: JobRecord) {
  const started = j.started_at ? Date.parse(iso(j.started_at)!) : null;
  const finished = j.finished_at ? Date.parse(iso(j.finished_at)!) : null;
  return {
    job_id: j.id,
    drive_id: j.drive_id,
    fld_id: j.fld_id,
    task: j.task,
    engine: j.engine,
    entrypoint: j.entrypoint,
    trigger: j.trigger,
    status: j.status,
    cancel_requested: j.cancel_requested,
    attempt: j.attempt,
    diagnostics: j.diagnostics,
    inputs: j.inputs,
    outputs: j.outputs,
    pdf: j.outputs[0] ?? null,
    page_count: j.page_count,
    error: j.error,
    error_code: j.error_code,
    engine_available: j.engineAvailable,
    actor_name: j.actor_name,
    workflow_id: j.workflowId,
    logs_url: `${config.http.baseUrl}/v0/jobs/${j.id}/logs`,
    created_at: iso(j.created_at)!,
    started_at: iso(j.started_at),
    finished_at: iso(j.finished_at),
    duration_ms: started !== null && finished !== null ? finished - started : null,
  };
}
