import { AppError } from '../lib/errors.js';
import type { RequestContext } from '../platform/request-context.js';
import type { Timestamp } from '../lib/time.js';
import { checkPath } from '../files/artifact-rules.js';
import { getFolder, type FolderRow } from '../files/folders.js';
import { authorizeThrough, type Capability } from '../access/authorize.js';
import { one, rows, type Db } from '../db/sql.js';
import { engineAvailable, type Engine } from './engine-availability.js';

/**
 * Projects (spec 2.9, 4.9): a compile config on a folder, keyed by the folder's stable id. The
 * entrypoint is a path relative to the folder; the engine is `latex` or `typst`, or null to pick
 * by the entrypoint's extension (docs/decisions.md, Projects and compile jobs).
 */

export interface ProjectRow {
  fld_id: string;
  drive_id: string;
  entrypoint: string;
  engine: Engine | null;
  auto_compile: boolean;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** A project with its folder's current path (folders move; the id stays). */
export interface Project extends ProjectRow {
  path: string;
  engineAvailable: boolean;
}

/** A project as the doors show it: whether this server has the engine its entrypoint resolves to. */
const projectOf = (rc: RequestContext, row: ProjectRow, path: string): Project => ({
  ...row,
  path,
  engineAvailable: engineAvailable(rc.app.config.compile.enginePath, resolveEngine(row.entrypoint, row.engine)),
});

export interface ProjectConfigInput {
  entrypoint: string;
  engine?: Engine | null;
  autoCompile: boolean;
}

const projectNotFound = () => new AppError('PROJECT_NOT_FOUND', 'this folder has no project config');

/** The engine an entrypoint's extension names, if any. */
export function engineByExtension(entrypoint: string): Engine | undefined {
  const lower = entrypoint.toLowerCase();
  if (lower.endsWith('.tex')) return 'latex';
  if (lower.endsWith('.typ')) return 'typst';
  return undefined;
}

/** The entrypoint's path rules: a relative artifact path inside the folder. */
export function checkEntrypoint(entrypoint: string): string {
  try {
    return checkPath(entrypoint.replace(/^\.\//, ''));
  } catch {
    throw new AppError(
      'INVALID_ENTRYPOINT',
      'entrypoint must be a relative path inside the project folder (artifact path rules)',
    );
  }
}

/** Engine: the explicit one, else the config's, else the entrypoint's extension. */
export function resolveEngine(entrypoint: string, ...explicit: (Engine | null | undefined)[]): Engine {
  const engine = explicit.find((e) => e) ?? engineByExtension(entrypoint);
  if (!engine)
    throw new AppError(
      'INVALID_ENTRYPOINT',
      `no engine for ${entrypoint}: name one (latex, typst) or use a .tex or .typ entrypoint`,
    );
  return engine;
}

/** Where a compile writes its PDF: beside the entrypoint, same stem, `.pdf`. */
export function outputPathOf(folderPath: string, entrypoint: string): string {
  const stem = entrypoint.replace(/\.[^./]*$/, '');
  return `${folderPath}/${stem}.pdf`;
}

/** PUT /v0/projects/{fld_id}: creates or replaces the config (a full replace: omitted auto_compile is false). */
export async function putProject(rc: RequestContext, fldId: string, input: ProjectConfigInput): Promise<Project> {
  const { driveId, folder } = await projectFolder(rc, fldId, 'can_manage');
  const entrypoint = checkEntrypoint(input.entrypoint);
  resolveEngine(entrypoint, input.engine);
  const db = rc.app.orm.em.fork();
  const row = (await one<ProjectRow>(
    db,
    `insert into projects (fld_id, drive_id, entrypoint, engine, auto_compile) values (?, ?, ?, ?, ?)
     on conflict (fld_id) do update set entrypoint = excluded.entrypoint, engine = excluded.engine,
       auto_compile = excluded.auto_compile, updated_at = clock_timestamp()
     returning *`,
    [fldId, driveId, entrypoint, input.engine ?? null, input.autoCompile],
  ))!;
  return projectOf(rc, row, folder.path);
}

/** GET /v0/projects/{fld_id}. */
export async function getProject(rc: RequestContext, fldId: string): Promise<Project> {
  const { driveId, folder } = await projectFolder(rc, fldId, 'read');
  const row = await findProjectRow(rc.app.orm.em.fork(), driveId, fldId);
  if (!row) throw projectNotFound();
  return projectOf(rc, row, folder.path);
}

export function findProjectRow(db: Db, driveId: string, fldId: string): Promise<ProjectRow | undefined> {
  return one<ProjectRow>(db, `select * from projects where fld_id = ? and drive_id = ?`, [fldId, driveId]);
}

/**
 * The folder of a project as the sharing rule allows it (src/access/authorize.ts): the owner, or a
 * grantee with `capability` on the folder (reading needs `read`; configuring, compiling and
 * cancelling need `can_manage`, see docs/decisions.md). A folder the caller may not read, in the
 * trash or absent is PROJECT_NOT_FOUND; one it may read but not change is 403 PERMISSION_DENIED.
 */
export async function projectFolder(
  rc: RequestContext,
  fldId: string,
  capability: Capability,
): Promise<{ driveId: string; folder: { id: string; path: string }; owner: boolean }> {
  const access = await authorizeThrough(rc, { fldId }, capability, projectNotFound);
  return { driveId: access.driveId, folder: access.folder!, owner: access.owner };
}

/** The live folder of a project id; a folder of another drive, in trash or absent is PROJECT_NOT_FOUND. */
export async function liveFolder(db: Db, driveId: string, fldId: string): Promise<FolderRow> {
  try {
    return await getFolder(db, driveId, { id: fldId });
  } catch (err) {
    if (err instanceof AppError && err.code === 'NOT_FOUND') throw projectNotFound();
    throw err;
  }
}

/**
 * The auto-compile projects whose folder holds `path` (nested projects each count), with the
 * folder's current path. One indexed query per artifact change of a drive that has any.
 */
export async function autoCompileProjectsFor(db: Db, driveId: string, path: string): Promise<Project[]> {
  return rows<Project>(
    db,
    `select p.*, f.path from projects p join folders f on f.id = p.fld_id
      where p.drive_id = ? and p.auto_compile and f.deleted_at is null and left(?, length(f.path) + 1) = f.path || '/'`,
    [driveId, path],
  );
}
