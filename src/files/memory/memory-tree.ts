import { AppError } from '../../lib/errors.js';
import { likePrefix, rows } from '../../db/sql.js';
import type { RequestContext } from '../../platform/request-context.js';
import { downloadName, segmentForName } from '../file-names.js';

/**
 * The memory tool's view of a drive (docs/decisions/memory-tool.md): `/memories` is a drive prefix (the credential's
 * `memory_prefix`, `memories` by default), each path segment maps by the name rule, and the tree (files and folders
 * under the prefix) is read once per command. The strings and path rules follow the anthropic SDK's
 * BetaLocalFilesystemMemoryTool (the oracle of test/memory/).
 */
export const DEFAULT_MEMORY_PREFIX = 'memories';
/** The drive folder `/memories` maps to for the calling credential. */
export const memoryRootOf = (rc: RequestContext): string => rc.principal.memoryPrefix || DEFAULT_MEMORY_PREFIX;
/** Hosted memory stores cap a store at 2,000 files; a drive's memory prefix is read whole per command, so bound it. */
export const MEMORY_MAX_ENTRIES = 5000;
export const LINE_NUMBER_WIDTH = 6;
/** A directory's own size: a drive has no directory inodes, so the listing prints what ext4 prints for a small one. */
export const DIRECTORY_SIZE = '4K';

/** A failure the reference raises as ToolError: the tool result string with is_error. */
export class MemoryToolError extends Error {}

/** A memory path resolved: its segments below /memories (original names) and the drive path they map to. */
export interface MemoryPath {
  given: string;
  segments: string[];
  drivePath: string;
  isRoot: boolean;
}

/**
 * _validate_path: must start with /memories; `.`/`..`/empty segments resolved; escaping the root refused. The drive
 * path is below `root`, the credential's memory prefix.
 */
export function resolveMemoryPath(given: string, root: string): MemoryPath {
  if (!given.startsWith('/memories')) throw new MemoryToolError(`Path must start with /memories, got: ${given}`);
  const segments: string[] = [];
  for (const part of given.slice('/memories'.length).split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (!segments.length) throw new MemoryToolError(`Path ${given} would escape /memories directory`);
      segments.pop();
    } else segments.push(part);
  }
  const drivePath = [root, ...segments.map(segmentForName)].join('/');
  return { given, segments, drivePath, isRoot: segments.length === 0 };
}

export interface MemoryFile {
  artId: string;
  drivePath: string;
  name: string;
  size: number;
  version: number;
}

/**
 * Files by drive path, folders (rows and the ones paths imply, from `root` down) by drive path, each file with its
 * shown name; `root` is the memory prefix.
 */
export interface MemoryTree {
  root: string;
  files: Map<string, MemoryFile>;
  dirs: Set<string>;
}

/** Reads the live files and folders under the memory prefix (bounded by MEMORY_MAX_ENTRIES). */
export async function loadMemoryTree(rc: RequestContext): Promise<MemoryTree> {
  const db = rc.app.orm.em.fork();
  const root = memoryRootOf(rc);
  const prefix = likePrefix(`${root}/`);
  const limit = MEMORY_MAX_ENTRIES + 1;
  const [artifacts, folders] = await Promise.all([
    rows<{ id: string; path: string; filename: string | null; size_bytes: string; version_number: number }>(
      db,
      `select id, path, filename, size_bytes, version_number from artifacts
        where drive_id = ? and deleted_at is null and path like ? escape '\\' limit ?`,
      [rc.driveId, prefix, limit],
    ),
    rows<{ path: string }>(
      db,
      `select path from folders where drive_id = ? and deleted_at is null and path like ? escape '\\' limit ?`,
      [rc.driveId, prefix, limit],
    ),
  ]);
  if (artifacts.length + folders.length > MEMORY_MAX_ENTRIES)
    throw new AppError('MEMORY_TOO_LARGE', `the memory prefix holds more than ${MEMORY_MAX_ENTRIES} entries`);
  const tree: MemoryTree = { root, files: new Map(), dirs: new Set([root]) };
  const addDirs = (path: string) => {
    for (let i = path.indexOf('/', root.length + 1); i > 0; i = path.indexOf('/', i + 1))
      tree.dirs.add(path.slice(0, i));
  };
  for (const f of folders) (tree.dirs.add(f.path), addDirs(f.path));
  for (const a of artifacts) {
    addDirs(a.path);
    const name = downloadName(a.path, a.filename);
    const file = { artId: a.id, drivePath: a.path, name, size: Number(a.size_bytes), version: a.version_number };
    tree.files.set(a.path, file);
  }
  return tree;
}

/** _format_file_size: 0B, 512B, 1.5K, 2M… (one decimal, rounded half to even as Python's format does). */
export function formatFileSize(bytes: number): string {
  if (bytes === 0) return '0B';
  const units = ['B', 'K', 'M', 'G'];
  const i = Math.min(Math.floor(Math.floor(Math.log2(bytes)) / 10), units.length - 1);
  const den = 1024 ** i;
  if (bytes % den === 0) return `${bytes / den}${units[i]}`;
  let tenths = Math.floor((bytes * 10) / den);
  const twice = 2 * (bytes * 10 - tenths * den);
  if (twice > den || (twice === den && tenths % 2 === 1)) tenths++;
  return `${Math.floor(tenths / 10)}.${tenths % 10}${units[i]}`;
}

/** Python's str ordering (code points), which sorted(iterdir(), key=name) uses. */
const byCodePoint = (a: string, b: string) => {
  const x = [...a].map((c) => c.codePointAt(0)!);
  const y = [...b].map((c) => c.codePointAt(0)!);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i] - y[i];
  return x.length - y.length;
};

/** The listing of a directory, two levels deep, hidden items skipped, as the reference prints it. */
export function listingOf(tree: MemoryTree, dir: string, given: string): string {
  const items: string[] = [];
  const collect = (path: string, relative: string, depth: number) => {
    const children: { name: string; path: string; dir: boolean; size: number }[] = [];
    for (const d of tree.dirs)
      if (d.startsWith(`${path}/`) && !d.slice(path.length + 1).includes('/'))
        children.push({ name: d.slice(path.length + 1), path: d, dir: true, size: 0 });
    for (const f of tree.files.values())
      if (f.drivePath.startsWith(`${path}/`) && !f.drivePath.slice(path.length + 1).includes('/'))
        children.push({ name: f.name, path: f.drivePath, dir: false, size: f.size });
    children.sort((a, b) => byCodePoint(a.name, b.name));
    for (const c of children) {
      if (c.name.startsWith('.')) continue;
      const rel = relative ? `${relative}/${c.name}` : c.name;
      if (!c.dir) {
        items.push(`${formatFileSize(c.size)}\t${given}/${rel}`);
        continue;
      }
      items.push(`${DIRECTORY_SIZE}\t${given}/${rel}/`);
      if (depth < 2) collect(c.path, rel, depth + 1);
    }
  };
  collect(dir, '', 1);
  const header = `Here're the files and directories up to 2 levels deep in ${given}, excluding hidden items:`;
  return `${header}\n${[`${DIRECTORY_SIZE}\t${given}`, ...items].join('\n')}`;
}

export const numberedLine = (n: number, line: string) => `${String(n).padStart(LINE_NUMBER_WIDTH)}\t${line}`;

/**
 * Lines of a text numbered the memory tool's way (`numberedLine`), the first numbered `first`: the line operations of
 * MCP `read` and `GET …/text` (issue 57). A final newline ends the last line and opens none (as `lineStarts` counts
 * lines), so the numbers shown match the answer's last line; the memory tool's own view numbers the empty string
 * after it, as Python's split does, and keeps doing so (fileView).
 */
export function numberLines(text: string, first: number): string {
  if (text === '') return '';
  const body = text.endsWith('\n') ? text.slice(0, -1) : text;
  return body
    .split('\n')
    .map((line, i) => numberedLine(first + i, line))
    .join('\n');
}

/** Python's lines[start:end] for start ≥ 0 (a negative end counts from the end). */
export function pySlice<T>(list: T[], start: number, end: number): T[] {
  const stop = end < 0 ? Math.max(0, list.length + end) : Math.min(end, list.length);
  return start >= stop ? [] : list.slice(start, stop);
}

/** The file view: numbered lines, an optional [start, end] range (end -1 = to the end). */
export function fileView(given: string, content: string, viewRange: number[] | undefined): string {
  const lines = content.split('\n');
  if (lines.length > 999_999) throw new MemoryToolError(`File ${given} exceeds maximum line limit of 999,999 lines.`);
  let shown = lines;
  let startNum = 1;
  if (viewRange && viewRange.length === 2) {
    const start = Math.max(1, viewRange[0]) - 1;
    shown = pySlice(lines, start, viewRange[1] === -1 ? lines.length : viewRange[1]);
    startNum = start + 1;
  }
  const numbered = shown.map((line, i) => numberedLine(i + startNum, line));
  return `Here's the content of ${given} with line numbers:\n${numbered.join('\n')}`;
}
