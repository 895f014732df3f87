import { AppError, type ErrorCode } from '../lib/errors.js';
import { newId } from '../lib/ids.js';
import type { AppContext } from '../platform/context.js';
import type { RequestContext } from '../platform/request-context.js';
import type { Timestamp } from '../lib/time.js';
import { compileWorkflowId, type CompileStatus } from '../temporal/compile-messages.js';
import { cancelCompileJob, startCompileJob } from '../temporal/start.js';
import { one, rows, transaction, type Db } from '../db/sql.js';
import type { Capability } from '../access/authorize.js';
import { compileDuration, compileJobsEnded, secondsSince } from '../platform/metrics.js';
import { checkOpenJobBound } from './admission.js';
import { engineAvailable, engineUnavailable, type Engine } from './engine-availability.js';
import { checkEntrypoint, findProjectRow, projectFolder, resolveEngine } from './projects.js';

/**
 * Compile jobs (spec 4.9, 3.8). A job row is written `queued`, then its workflow
 * (`compile-<job_id>`) moves it to `running` and to exactly one terminal state:
 * `succeeded`, `failed`, `cancelled` or `timed_out` (docs/decisions.md has the transition table).
 * Every move out of queued/running is a conditional update, so the first writer wins.
 */
export const JOB_STATUSES = [
  'queued',
  'running',
  'succeeded',
  'failed',
  'cancelled',
  'timed_out',
] as const satisfies readonly CompileStatus[];
export const TERMINAL: readonly CompileStatus[] = ['succeeded', 'failed', 'cancelled', 'timed_out'];
export const COMPILE_TASKS = ['latex.compile', 'typst.compile', 'compile'] as const;
export type CompileTask = (typeof COMPILE_TASKS)[number];

export interface Diagnostic {
  severity: 'error' | 'warning';
  /** Project-relative path, or an absolute system path, or null when the log names none. */
  file: string | null;
  line: number | null;
  message: string;
}

export interface FileRef {
  art_id: string;
  path: string;
  version_number: number;
}

export interface JobRow {
  id: string;
  drive_id: string;
  fld_id: string;
  task: string;
  engine: Engine;
  entrypoint: string;
  trigger: 'api' | 'auto_compile';
  actor_name: string | null;
  status: CompileStatus;
  cancel_requested: boolean;
  attempt: number;
  inputs: FileRef[];
  outputs: FileRef[];
  diagnostics: Diagnostic[];
  page_count: number | null;
  error: string | null;
  /** A catalogue code for why the job failed, where there is one (ENGINE_UNAVAILABLE). */
  error_code: string | null;
  /** Enqueued by a grantee: the run sees only what the grant shows (no subfolder with inherit_grants off). */
  restricted: boolean;
  runner: { host: string; pid: number } | null;
  created_at: Timestamp;
  started_at: Timestamp | null;
  finished_at: Timestamp | null;
}

/** Every column but the log (served on its own). */
const JOB_COLUMNS = `id, drive_id, fld_id, task, engine, entrypoint, trigger, actor_name, status, cancel_requested, attempt,
  inputs, outputs, diagnostics, page_count, error, error_code, restricted, runner, created_at, started_at, finished_at`;

/** A job as the doors show it: its row, the workflow that runs it (ops find it in the Temporal UI) and whether this
 * server has its engine. */
export interface JobRecord extends JobRow {
  workflowId: string;
  engineAvailable: boolean;
}

export const jobRecord = (app: AppContext, job: JobRow): JobRecord => ({
  ...job,
  workflowId: compileWorkflowId(job.id),
  engineAvailable: engineAvailable(app.config.compile.enginePath, job.engine),
});

export interface EnqueueInput {
  /** As sent; undefined when omitted (the product's default is latex.compile). */
  task?: CompileTask;
  entrypoint?: string;
  engine?: Engine | null;
  trigger?: 'api' | 'auto_compile';
  /** Makes a retried enqueue (the auto-compile activity) return the job it already made. */
  requestKey?: string;
}

const jobNotFound = () => new AppError('JOB_NOT_FOUND', 'no such compile job');
const TASK_ENGINE: Record<CompileTask, Engine | undefined> = {
  'latex.compile': 'latex',
  'typst.compile': 'typst',
  compile: undefined,
};

/**
 * With no entrypoint given or configured: the folder's own `main.typ` or `main.tex` when it holds exactly one of them,
 * else its single `.typ` or `.tex` file (at the folder's top); the engine then follows the extension.
 */
async function inferEntrypoint(db: Db, driveId: string, folderPath: string): Promise<string> {
  const prefix = `${folderPath.replace(/^\/+|\/+$/g, '')}/`;
  const found = await rows<{ path: string }>(
    db,
    `select path from artifacts where drive_id = ? and deleted_at is null and starts_with(path, ?)
       and (path like '%.typ' or path like '%.tex') order by path limit 50`,
    [driveId, prefix],
  );
  const top = found.map((r) => r.path.slice(prefix.length)).filter((p) => !p.includes('/'));
  const mains = top.filter((p) => p === 'main.typ' || p === 'main.tex');
  const pick = mains.length === 1 ? mains[0] : mains.length === 0 && top.length === 1 ? top[0] : undefined;
  if (pick) return pick;
  const candidates = top.length ? `; candidates: ${top.slice(0, 10).join(', ')}` : '; the folder holds no .typ or .tex';
  throw new AppError('INVALID_ENTRYPOINT', `no entrypoint: pass one (e.g. main.typ or main.tex)${candidates}`, {
    argument: 'entrypoint',
  });
}

/**
 * POST /v0/projects/{fld_id}/jobs: resolves entrypoint and engine (options, then the project
 * config, then the extension), records the job `queued` and starts its workflow.
 */
export async function enqueueCompile(rc: RequestContext, fldId: string, input: EnqueueInput): Promise<JobRow> {
  const app = rc.app;
  const db = app.orm.em.fork();
  const { driveId, owner, folder } = await projectFolder(rc, fldId, 'can_manage');
  const project = await findProjectRow(db, driveId, fldId);
  const raw = input.entrypoint ?? project?.entrypoint ?? (await inferEntrypoint(db, driveId, folder.path));
  const entrypoint = checkEntrypoint(raw);
  const engine = resolveEngine(
    entrypoint,
    input.engine,
    input.task ? TASK_ENGINE[input.task] : undefined,
    project?.engine,
  );
  const findByKey = (d: Db) =>
    input.requestKey
      ? one<JobRow>(d, `select ${JOB_COLUMNS} from compile_jobs where request_key = ?`, [input.requestKey])
      : undefined;
  // A retried enqueue (same request key) returns its job; a new one must fit the drive's bound (admission.ts).
  const job = await transaction(app, async (tx) => {
    const retried = await findByKey(tx);
    if (retried) return retried;
    await checkOpenJobBound(tx, app, driveId);
    const inserted = await one<JobRow>(
      tx,
      `insert into compile_jobs (id, drive_id, fld_id, task, engine, entrypoint, trigger, actor_name, request_key, restricted)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) on conflict (request_key) do nothing returning ${JOB_COLUMNS}`,
      [
        newId('job'),
        driveId,
        fldId,
        input.task ?? 'latex.compile',
        engine,
        entrypoint,
        input.trigger ?? 'api',
        rc.actor,
        input.requestKey ?? null,
        !owner,
      ],
    );
    return inserted ?? (await findByKey(tx))!;
  });
  const c = app.config;
  const missingEngine = engineUnavailable(c.compile.enginePath, engine);
  if (missingEngine)
    return (await finishJob(app, job.id, {
      status: 'failed',
      error: missingEngine.message,
      errorCode: missingEngine.code,
    }))!;
  try {
    await startCompileJob(
      { temporal: app.temporal, taskQueue: c.temporal.taskQueue },
      {
        jobId: job.id,
        driveId: job.drive_id,
        fldId: job.fld_id,
        compileTaskQueue: c.compile.taskQueue,
        timeoutS: c.compile.timeoutS,
        heartbeatTimeoutS: c.compile.heartbeatTimeoutS,
      },
    );
  } catch (err) {
    app.logger.error({ err, jobId: job.id }, 'compile: workflow start failed');
    await finishJob(app, job.id, {
      status: 'failed',
      error: 'the workflow service was unavailable; the job never started',
    });
    throw new AppError('WORKFLOWS_UNAVAILABLE', 'compile jobs cannot be started right now; retry later');
  }
  return job;
}

/** GET /v0/jobs/{job_id}: a job of a project the caller may read; any other is absent. */
export async function getJob(rc: RequestContext, jobId: string): Promise<JobRecord> {
  return jobRecord(rc.app, (await accessJob(rc, jobId, 'read')).job);
}

const findJob = (db: Db, driveId: string, jobId: string, lock = false) =>
  one<JobRow>(db, `select ${JOB_COLUMNS} from compile_jobs where id = ? and drive_id = ?${lock ? ' for update' : ''}`, [
    jobId,
    driveId,
  ]);

/**
 * The job and its drive, through the project folder's access rule; 404 JOB_NOT_FOUND when the caller may not read it.
 */
async function accessJob(
  rc: RequestContext,
  jobId: string,
  capability: Capability,
): Promise<{ job: JobRow; driveId: string }> {
  const job = await one<JobRow>(rc.app.orm.em.fork(), `select ${JOB_COLUMNS} from compile_jobs where id = ?`, [jobId]);
  if (!job) throw jobNotFound();
  if (job.drive_id === rc.driveId) return { job, driveId: job.drive_id };
  try {
    const { driveId } = await projectFolder(rc, job.fld_id, 'read');
    if (capability !== 'read') await projectFolder(rc, job.fld_id, capability);
    return { job, driveId };
  } catch (err) {
    if (err instanceof AppError && err.status === 404) throw jobNotFound();
    throw err;
  }
}

/** `wait: true`: polls the job until it ends or `maxMs` pass; returns its record either way. */
export async function waitForJob(
  rc: RequestContext,
  jobId: string,
  maxMs = rc.app.config.compile.waitS * 1000,
): Promise<JobRecord> {
  const until = Date.now() + maxMs;
  for (let delay = 100; ; delay = Math.min(delay * 1.5, 1000)) {
    const job = await getJob(rc, jobId);
    if (TERMINAL.includes(job.status) || Date.now() >= until) return job;
    await new Promise((r) => setTimeout(r, Math.min(delay, Math.max(0, until - Date.now()))));
  }
}

/** GET /v0/projects/{fld_id}/jobs: newest first, optionally one status. */
export async function listJobs(
  rc: RequestContext,
  fldId: string,
  q: { status?: CompileStatus; limit: number },
): Promise<JobRecord[]> {
  const { driveId } = await projectFolder(rc, fldId, 'read');
  const jobs = await rows<JobRow>(
    rc.app.orm.em.fork(),
    `select ${JOB_COLUMNS} from compile_jobs where drive_id = ? and fld_id = ? and (?::text is null or status = ?)
      order by created_at desc, id desc limit ?`,
    [driveId, fldId, q.status ?? null, q.status ?? null, q.limit],
  );
  return jobs.map((j) => jobRecord(rc.app, j));
}

/** GET /v0/jobs/{job_id}/logs: the engine's log (empty until the engine has run). */
export async function jobLog(rc: RequestContext, jobId: string): Promise<string> {
  const { driveId } = await accessJob(rc, jobId, 'read');
  const r = await one<{ log: string | null }>(
    rc.app.orm.em.fork(),
    `select log from compile_jobs where id = ? and drive_id = ?`,
    [jobId, driveId],
  );
  return r?.log ?? '';
}

/**
 * POST /v0/jobs/{job_id}/cancel: a queued job ends `cancelled` at once; a running one is marked
 * `cancel_requested` and its workflow cancelled, and the compile activity kills the engine's
 * process group and records `cancelled`. Cancelling a cancelled job returns it; other ends are 409.
 */
export async function cancelJob(rc: RequestContext, jobId: string): Promise<JobRecord> {
  const { driveId } = await accessJob(rc, jobId, 'can_manage');
  const job = await transaction(rc.app, async (tx) => {
    const current = await findJob(tx, driveId, jobId, true);
    if (!current) throw jobNotFound();
    if (current.status === 'cancelled') return current;
    if (TERMINAL.includes(current.status)) {
      throw new AppError('JOB_NOT_CANCELLABLE', `the job already ended (${current.status})`, {
        current_status: current.status,
      });
    }
    return (await one<JobRow>(
      tx,
      `update compile_jobs set cancel_requested = true,
         status = case when status = 'queued' then 'cancelled' else status end,
         finished_at = case when status = 'queued' then clock_timestamp() else finished_at end
       where id = ? returning ${JOB_COLUMNS}`,
      [jobId],
    ))!;
  });
  try {
    await cancelCompileJob(rc.app.temporal, jobId);
  } catch (err) {
    // The activity also polls cancel_requested, so a lost workflow cancel still stops the engine.
    rc.app.logger.warn({ err, jobId }, 'compile: workflow cancel failed; the activity will see cancel_requested');
  }
  return jobRecord(rc.app, job);
}

// ---- the worker's side (activities) ----

/** Moves a job to `running` (again, on a retried attempt); undefined when it already ended or a cancel is pending. */
export async function claimJob(app: AppContext, jobId: string, attempt: number): Promise<JobRow | undefined> {
  return one<JobRow>(
    app.orm.em.fork(),
    `update compile_jobs set status = 'running', attempt = ?, started_at = coalesce(started_at, clock_timestamp())
      where id = ? and status in ('queued', 'running') and not cancel_requested returning ${JOB_COLUMNS}`,
    [attempt, jobId],
  );
}

export async function jobById(app: AppContext, jobId: string): Promise<JobRow | undefined> {
  return one<JobRow>(app.orm.em.fork(), `select ${JOB_COLUMNS} from compile_jobs where id = ?`, [jobId]);
}

export async function isCancelRequested(app: AppContext, jobId: string): Promise<boolean> {
  const r = await one<{ cancel_requested: boolean }>(
    app.orm.em.fork(),
    `select cancel_requested from compile_jobs where id = ?`,
    [jobId],
  );
  return r?.cancel_requested ?? true;
}

export async function recordRunner(
  app: AppContext,
  jobId: string,
  runner: { host: string; pid: number },
): Promise<void> {
  await rows(app.orm.em.fork(), `update compile_jobs set runner = ?::jsonb where id = ?`, [
    JSON.stringify(runner),
    jobId,
  ]);
}

export interface JobOutcome {
  status: Exclude<CompileStatus, 'queued' | 'running'>;
  error?: string | null;
  errorCode?: ErrorCode;
  log?: string | null;
  diagnostics?: Diagnostic[];
  inputs?: FileRef[];
  outputs?: FileRef[];
  pageCount?: number | null;
}

/** Records the job's end unless it has already ended (first writer wins); returns the row as it stands. */
export async function finishJob(app: AppContext, jobId: string, o: JobOutcome): Promise<JobRow | undefined> {
  const db = app.orm.em.fork();
  const done = await one<JobRow>(
    db,
    `update compile_jobs set status = ?, error = ?, error_code = ?, log = coalesce(?, log), diagnostics = coalesce(?::jsonb, diagnostics),
       inputs = coalesce(?::jsonb, inputs), outputs = coalesce(?::jsonb, outputs), page_count = ?, finished_at = clock_timestamp()
     where id = ? and status in ('queued', 'running') returning ${JOB_COLUMNS}`,
    [
      o.status,
      o.error ?? null,
      o.errorCode ?? null,
      o.log ?? null,
      o.diagnostics ? JSON.stringify(o.diagnostics) : null,
      o.inputs ? JSON.stringify(o.inputs) : null,
      o.outputs ? JSON.stringify(o.outputs) : null,
      o.pageCount ?? null,
      jobId,
    ],
  );
  if (done) recordJobEnd(done);
  return done ?? jobById(app, jobId);
}

/** The job's end in this process's metrics (src/platform/metrics.ts): by engine and state, enqueue to end. */
function recordJobEnd(job: JobRow): void {
  const labels = { engine: job.engine, state: job.status };
  compileJobsEnded.inc(labels);
  compileDuration.observe(labels, secondsSince(job.created_at, job.finished_at ?? new Date()));
}
