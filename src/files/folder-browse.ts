import { AppError } from '../lib/errors.js';
import type { Timestamp } from '../lib/time.js';
import type { RequestContext } from '../platform/request-context.js';
import type { ArtifactRow } from '../records/artifact-records.js';
import { rows, type Db } from '../db/sql.js';
import { listArtifacts } from './artifact-listing.js';
import { getFolder, readFolderAt, type FolderRow } from './folders.js';

/**
 * Browsing a folder as people (and agents) think of it: a folder is every path prefix that holds something, whether
 * an explicit folder row exists (`POST /v0/folders`) or the folder is only implied by the paths of artifacts
 * (`docs/report.md` implies `docs/`). The drive's owner browses every folder of the drive, the root included; anyone
 * else browses an explicit folder a grant lets them read (the one rule), never an implied one or the root.
 */
export type FolderSort = 'name' | 'size' | 'date';

export interface SubfolderEntry {
  name: string;
  /** The subfolder's path in the drive (no trailing slash). */
  path: string;
  /** The explicit folder's id, or null when the folder is implied by paths only. */
  id: string | null;
  files: number;
  bytes: number;
  updatedAt: Timestamp | null;
}

export interface FolderView {
  driveId: string;
  /** '' for the root, else the folder's path without a trailing slash. */
  path: string;
  owner: boolean;
  /** The explicit folder row, when there is one. */
  folder: FolderRow | null;
  folders: SubfolderEntry[];
  files: ArtifactRow[];
  /** Ids (art_/fld_) of listed items with live grants or links: 'public' (anyone, no expiry) or 'shared'. */
  marks: Record<string, 'public' | 'shared'>;
  /** More files than one page shows. */
  truncated: boolean;
}

export const BROWSE_MAX_FILES = 1000;

const notFound = () => new AppError('NOT_FOUND', 'no live folder');

export async function browseFolder(
  rc: RequestContext,
  driveId: string,
  path: string,
  opts: { sort?: FolderSort } = {},
): Promise<FolderView> {
  const trimmed = path.replace(/^\/+|\/+$/g, '');
  const view =
    rc.principal.driveId === driveId ? await ownerView(rc, driveId, trimmed) : await granteeView(rc, driveId, trimmed);
  sortView(view, opts.sort ?? 'name');
  return view;
}

async function ownerView(rc: RequestContext, driveId: string, path: string): Promise<FolderView> {
  const db = rc.app.orm.em.fork();
  const prefix = path ? `${path}/` : '';
  const from = prefix.length + 1;
  const [files, implied, explicit, folder] = await Promise.all([
    rows<ArtifactRow>(
      db,
      `select * from artifacts where drive_id = ? and deleted_at is null and starts_with(path, ?)
          and position('/' in substr(path, ?)) = 0 order by path collate "C" limit ?`,
      [driveId, prefix, from, BROWSE_MAX_FILES + 1],
    ),
    rows<{ name: string; n: string; bytes: string; updated: Timestamp }>(
      db,
      `select split_part(substr(path, ?), '/', 1) as name, count(*) as n, sum(size_bytes) as bytes, max(updated_at) as updated
         from artifacts where drive_id = ? and deleted_at is null and starts_with(path, ?)
          and position('/' in substr(path, ?)) > 0 group by 1`,
      [from, driveId, prefix, from],
    ),
    rows<{ name: string; id: string | null }>(
      db,
      `select split_part(substr(path, ?), '/', 1) as name,
              max(case when position('/' in substr(path, ?)) = 0 then id end) as id
         from folders where drive_id = ? and deleted_at is null and starts_with(path, ?) group by 1`,
      [from, from, driveId, prefix],
    ),
    path ? getFolder(db, driveId, { path }).catch(() => null) : Promise.resolve(null),
  ]);
  if (path && !folder && !files.length && !implied.length && !explicit.length) throw notFound();
  const byName = new Map<string, SubfolderEntry>();
  for (const f of implied)
    byName.set(f.name, {
      name: f.name,
      path: `${prefix}${f.name}`,
      id: null,
      files: Number(f.n),
      bytes: Number(f.bytes),
      updatedAt: f.updated,
    });
  for (const f of explicit) {
    const entry = byName.get(f.name) ?? {
      name: f.name,
      path: `${prefix}${f.name}`,
      id: null,
      files: 0,
      bytes: 0,
      updatedAt: null,
    };
    entry.id = f.id;
    byName.set(f.name, entry);
  }
  const folders = [...byName.values()];
  const shown = files.slice(0, BROWSE_MAX_FILES);
  const ids = [
    ...shown.map((a) => a.id),
    ...folders.flatMap((f) => (f.id ? [f.id] : [])),
    ...(folder ? [folder.id] : []),
  ];
  return {
    driveId,
    path,
    owner: true,
    folder,
    folders,
    files: shown,
    marks: await sharingMarks(db, driveId, ids),
    truncated: files.length > BROWSE_MAX_FILES,
  };
}

/** Someone else's folder: only an explicit folder their grants cover, listed through the one rule. */
async function granteeView(rc: RequestContext, driveId: string, path: string): Promise<FolderView> {
  if (!path) throw notFound();
  const folder = await readFolderAt(rc, driveId, path);
  const { items, next_cursor } = await listArtifacts(rc, {
    prefix: '',
    labels: [],
    limit: BROWSE_MAX_FILES,
    folderId: folder.id,
  });
  const { folders, files } = groupListing(items, `${folder.path}/`);
  return {
    driveId,
    path: folder.path,
    owner: false,
    folder,
    folders,
    files,
    marks: {},
    truncated: next_cursor !== null,
  };
}

/** Groups a flat listing (live artifacts below `prefix`) into direct subfolders and files. */
export function groupListing(
  items: ArtifactRow[],
  prefix: string,
): { folders: SubfolderEntry[]; files: ArtifactRow[] } {
  const byName = new Map<string, SubfolderEntry>();
  const files: ArtifactRow[] = [];
  for (const a of items) {
    const rest = a.path.slice(prefix.length);
    const slash = rest.indexOf('/');
    if (slash < 0) {
      files.push(a);
      continue;
    }
    const name = rest.slice(0, slash);
    const entry = byName.get(name) ?? { name, path: `${prefix}${name}`, id: null, files: 0, bytes: 0, updatedAt: null };
    entry.files += 1;
    entry.bytes += Number(a.size_bytes);
    if (!entry.updatedAt || time(a.updated_at) > time(entry.updatedAt)) entry.updatedAt = a.updated_at;
    byName.set(name, entry);
  }
  return { folders: [...byName.values()], files };
}

/** Which of these resources have live grants or share links: public (an anyone grant without expiry) or shared. */
async function sharingMarks(db: Db, driveId: string, ids: string[]): Promise<Record<string, 'public' | 'shared'>> {
  if (!ids.length) return {};
  const found = await rows<{ id: string; public: boolean }>(
    db,
    `select coalesce(art_id, fld_id) as id, bool_or(principal_type = 'anyone' and expires_at is null) as public
       from grants where drive_id = ? and revoked_at is null and (expires_at is null or expires_at > clock_timestamp())
        and coalesce(art_id, fld_id) = any(array[?]::text[]) group by 1
     union all
     select coalesce(art_id, fld_id), false from shares where drive_id = ? and revoked_at is null
        and (expires_at is null or expires_at > clock_timestamp()) and coalesce(art_id, fld_id) = any(array[?]::text[])`,
    [driveId, ids, driveId, ids],
  );
  const marks: Record<string, 'public' | 'shared'> = {};
  for (const r of found) if (marks[r.id] !== 'public') marks[r.id] = r.public ? 'public' : 'shared';
  return marks;
}

const time = (t: Timestamp | null) => (t ? new Date(t as string).getTime() : 0);

function sortView(view: FolderView, sort: FolderSort): void {
  const byName = (a: string, b: string) => a.localeCompare(b, 'en', { numeric: true, sensitivity: 'base' });
  if (sort === 'size') {
    view.folders.sort((a, b) => b.bytes - a.bytes || byName(a.name, b.name));
    view.files.sort((a, b) => Number(b.size_bytes) - Number(a.size_bytes) || byName(a.path, b.path));
  } else if (sort === 'date') {
    view.folders.sort((a, b) => time(b.updatedAt) - time(a.updatedAt) || byName(a.name, b.name));
    view.files.sort((a, b) => time(b.updated_at) - time(a.updated_at) || byName(a.path, b.path));
  } else {
    view.folders.sort((a, b) => byName(a.name, b.name));
    view.files.sort((a, b) => byName(a.path, b.path));
  }
}
