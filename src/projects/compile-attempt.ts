import { mkdir, mkdtemp, open, readFile, rm, writeFile } from 'node:fs/promises';
import { getDocumentProxy } from 'unpdf';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createWriteStream } from 'node:fs';
import type { AppContext } from '../platform/context.js';
import { AppError } from '../lib/errors.js';
import { systemRequestContext } from '../platform/request-context.js';
import { uploadArtifact } from '../files/artifacts.js';
import { readContent } from '../files/content.js';
import { rows } from '../db/sql.js';
import { getLiveArtifactByPath } from '../records/artifact-records.js';
import { createHash } from 'node:crypto';
import { engineUnavailable } from './engine-availability.js';
import { runEngine, type EngineRun } from './engines.js';
import {
  claimJob,
  finishJob,
  isCancelRequested,
  jobById,
  recordRunner,
  type FileRef,
  type JobOutcome,
  type JobRow,
} from './jobs.js';
import { liveFolder, outputPathOf } from './projects.js';

/**
 * One attempt at a compile job, as the worker's activity runs it: claim the job, copy the folder's
 * files at one consistent version set into a scratch directory, run the engine (sandboxed, see
 * engines.ts), write the PDF back beside the entrypoint through the drive domain (an ordinary new
 * version with its event, `source.refs` naming the job and the inputs with their versions), and
 * record the job's end. A compile failure is a recorded outcome, never a thrown error; what is
 * thrown (storage, database) is retried by Temporal.
 */
export interface CompileHooks {
  attempt: number;
  /** The engine's wall-clock limit, fixed when the job was enqueued (COMPILE_TIMEOUT_S of the API). */
  timeoutS: number;
  /** Cancellation as Temporal delivers it (through heartbeats). */
  signal: AbortSignal;
  heartbeat(details?: unknown): void;
}

export const COMPILE_ACTOR = 'compile';

interface InputFile extends FileRef {
  hash: string;
  size_bytes: string | number;
  content_type: string;
  /** When the file last changed (seconds): the newest one dates the PDF, so unchanged sources give the same bytes. */
  updated_s: string | number;
}

/**
 * The project's files at one instant, as the requester sees them: a single statement reads one
 * snapshot of the live artifacts; for a grantee's job (`restricted`) it leaves out everything under a
 * subfolder that takes no grant from above (inherit_grants off), exactly what a listing through the
 * grant hides, so such files are neither inputs nor named anywhere in the job.
 */
async function snapshotFiles(
  app: AppContext,
  driveId: string,
  folderPath: string,
  outputPath: string,
  restricted: boolean,
): Promise<InputFile[]> {
  const hidden = restricted
    ? `and not exists (select 1 from folders f where f.drive_id = a.drive_id and f.deleted_at is null and not f.inherit_grants
         and starts_with(f.path, ?) and starts_with(a.path, f.path || '/'))`
    : '';
  return rows<InputFile>(
    app.orm.em.fork(),
    `select a.id as art_id, a.path, a.version_number, a.hash, a.size_bytes, a.content_type,
            extract(epoch from a.updated_at)::bigint as updated_s from artifacts a
      where a.drive_id = ? and a.deleted_at is null and left(a.path, ?) = ? and a.path <> ? ${hidden} order by a.path`,
    [driveId, folderPath.length + 1, `${folderPath}/`, outputPath, ...(restricted ? [`${folderPath}/`] : [])],
  );
}

async function materialize(app: AppContext, dir: string, folderPath: string, files: InputFile[]): Promise<void> {
  for (const f of files) {
    const target = path.join(dir, f.path.slice(folderPath.length + 1));
    await mkdir(path.dirname(target), { recursive: true });
    const blob = {
      artId: f.art_id,
      hash: f.hash,
      size: Number(f.size_bytes),
      contentType: f.content_type,
      path: f.path,
      versionNumber: f.version_number,
    };
    const content = await readContent(app, blob);
    if (Buffer.isBuffer(content)) await writeFile(target, content);
    else await pipeline(content, createWriteStream(target));
  }
}

/** The log as stored: at most COMPILE_LOG_MAX_BYTES, keeping the end (where TeX reports why it stopped). */
function capLog(app: AppContext, log: string): string {
  const max = app.config.compile.logMaxBytes;
  if (Buffer.byteLength(log) <= max) return log;
  return `[log truncated to its last ${max} bytes]\n${Buffer.from(log).subarray(-max).toString('utf8')}`;
}

async function pageCountOf(pdfPath: string): Promise<number | null> {
  try {
    const doc = await getDocumentProxy(new Uint8Array(await readFile(pdfPath)));
    return doc.numPages;
  } catch {
    return null;
  }
}

export async function runCompileAttempt(app: AppContext, jobId: string, hooks: CompileHooks): Promise<JobRow> {
  const job = await claimJob(app, jobId, hooks.attempt);
  if (!job) {
    // Cancelled while queued (or already ended): make sure a pending cancel is recorded.
    const current = (await jobById(app, jobId))!;
    if (current.status === 'queued' || current.status === 'running')
      return (await finishJob(app, jobId, { status: 'cancelled' }))!;
    return current;
  }
  const c = app.config.compile;
  // The API refuses these at enqueue; a worker on another machine may still lack what the API has.
  const missingEngine = engineUnavailable(c.enginePath, job.engine);
  if (missingEngine)
    return (await finishJob(app, jobId, {
      status: 'failed',
      error: missingEngine.message,
      errorCode: missingEngine.code,
    }))!;
  let folderPath: string;
  try {
    folderPath = (await liveFolder(app.orm.em.fork(), job.drive_id, job.fld_id)).path;
  } catch (err) {
    if (err instanceof AppError)
      return (await finishJob(app, jobId, { status: 'failed', error: 'the project folder is gone' }))!;
    throw err;
  }
  const outputPath = outputPathOf(folderPath, job.entrypoint);
  const files = await snapshotFiles(app, job.drive_id, folderPath, outputPath, job.restricted);
  const inputs: FileRef[] = files.map((f) => ({ art_id: f.art_id, path: f.path, version_number: f.version_number }));
  const fail = (error: string, extra: Partial<JobOutcome> = {}) =>
    finishJob(app, jobId, { status: 'failed', error, inputs, ...extra }).then((r) => r!);
  const total = files.reduce((n, f) => n + Number(f.size_bytes), 0);
  if (total > c.maxProjectBytes)
    return fail(`the project's files total ${total} bytes, over the ${c.maxProjectBytes}-byte compile limit`);
  if (!files.some((f) => f.path === `${folderPath}/${job.entrypoint}`)) {
    return fail(`the entrypoint ${job.entrypoint} is not in the project folder`, {
      diagnostics: [
        { severity: 'error', file: job.entrypoint, line: null, message: 'entrypoint not found in the project folder' },
      ],
    });
  }

  const dir = await mkdtemp(path.join(tmpdir(), `compile-${jobId}-`));
  // Cancellation arrives from Temporal (heartbeat) or, as a fallback, from the job row.
  const abort = new AbortController();
  const onCancel = () => abort.abort();
  hooks.signal.addEventListener('abort', onCancel, { once: true });
  const beat = setInterval(() => {
    hooks.heartbeat({ phase: 'running' });
    isCancelRequested(app, jobId).then(
      (yes) => yes && abort.abort(),
      () => undefined,
    );
  }, 1000);
  try {
    await materialize(app, dir, folderPath, files);
    if (await isCancelRequested(app, jobId)) abort.abort();
    const run: EngineRun = await runEngine({
      engine: job.engine,
      searchPath: c.enginePath,
      dir,
      entrypoint: job.entrypoint,
      sourceDateEpoch: Math.max(0, ...files.map((f) => Number(f.updated_s))),
      timeoutS: hooks.timeoutS,
      memoryMb: c.memoryMb,
      fileMaxMb: c.fileMaxMb,
      logMaxBytes: c.logMaxBytes,
      signal: abort.signal,
      onSpawn: (pid) => void recordRunner(app, jobId, { host: hostname(), pid }).catch(() => undefined),
    });
    const log = capLog(app, run.log);
    const common = { log, diagnostics: run.diagnostics, inputs };
    if (run.outcome === 'cancelled') return (await finishJob(app, jobId, { status: 'cancelled', ...common }))!;
    if (run.outcome === 'timeout')
      return (await finishJob(app, jobId, {
        status: 'timed_out',
        error: `the engine ran past the ${hooks.timeoutS}-second limit`,
        ...common,
      }))!;
    if (run.outcome === 'error' || !run.pdfPath)
      return fail('the engine reported errors; see diagnostics and the log', common);

    const pageCount = await pageCountOf(run.pdfPath);
    const refs = [
      { type: 'compile_job', id: jobId },
      ...inputs
        .slice(0, 63)
        .map((f) => ({ type: 'artifact', id: f.art_id, metadata: { path: f.path, version_number: f.version_number } })),
    ];
    // The same bytes as the current PDF: no new version (a recompile of unchanged sources).
    const unchanged = await unchangedOutput(app, job.drive_id, outputPath, run.pdfPath);
    if (unchanged) {
      const outputs = [{ art_id: unchanged.id, path: unchanged.path, version_number: unchanged.version_number }];
      return (await finishJob(app, jobId, { status: 'succeeded', outputs, pageCount, ...common }))!;
    }
    let pdf;
    // Opened before the upload starts and closed after, so the scratch directory's removal never races it.
    const handle = await open(run.pdfPath, 'r');
    try {
      pdf = await uploadArtifact(
        systemRequestContext(app, job.drive_id, COMPILE_ACTOR, jobId),
        { path: outputPath, contentType: 'application/pdf', source: { refs }, changeSummary: `compiled by ${jobId}` },
        { stream: handle.createReadStream({ autoClose: false }), declaredBytes: (await handle.stat()).size },
      );
    } catch (err) {
      app.logger.warn({ err, jobId }, 'compile: storing the PDF failed');
      if (err instanceof AppError && err.status < 500)
        return fail(`the PDF could not be stored: ${err.message}`, common);
      throw err;
    } finally {
      await handle.close().catch(() => undefined);
    }
    const outputs = [{ art_id: pdf.id, path: pdf.path, version_number: pdf.version_number }];
    return (await finishJob(app, jobId, { status: 'succeeded', outputs, pageCount, ...common }))!;
  } finally {
    clearInterval(beat);
    hooks.signal.removeEventListener('abort', onCancel);
    await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  }
}

/** The live artifact at the output path when it already holds exactly these bytes (same SHA-256). */
async function unchangedOutput(app: AppContext, driveId: string, outputPath: string, pdfPath: string) {
  const current = await getLiveArtifactByPath(app.orm.em.fork(), driveId, outputPath);
  if (!current) return undefined;
  const digest = createHash('sha256')
    .update(await readFile(pdfPath))
    .digest('hex');
  return current.hash.replace(/^sha256:/, '') === digest ? current : undefined;
}
