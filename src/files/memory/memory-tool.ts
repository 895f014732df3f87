import { Readable } from 'node:stream';
import type { RequestContext } from '../../platform/request-context.js';
import { uploadArtifact } from '../artifacts.js';
import { artifactContent } from '../content.js';
import { createFolder } from '../folders.js';
import { deleteByRef, moveByRef } from '../ref-writes.js';
import { blobBytes } from '../text.js';
import {
  MemoryToolError,
  fileView,
  listingOf,
  loadMemoryTree,
  memoryRootOf,
  numberedLine,
  resolveMemoryPath,
  type MemoryPath,
  type MemoryTree,
} from './memory-tree.js';

/**
 * The memory tool (`memory_20250818`) on a drive (docs/decisions/memory-tool.md): one command as the model emits it,
 * answered with the string the anthropic SDK's BetaLocalFilesystemMemoryTool returns for the same state. Every write
 * goes through the drive's write operations (upload, folders, move, delete), so it is a version and an event of the
 * request's run, in the feed and undoable like any other. `/memories` is the calling credential's memory prefix
 * (`memoryRootOf`).
 */
export type MemoryCommand =
  | { command: 'view'; path: string; view_range?: number[] }
  | { command: 'create'; path: string; file_text: string }
  | { command: 'str_replace'; path: string; old_str: string; new_str: string }
  | { command: 'insert'; path: string; insert_line: number; insert_text: string }
  | { command: 'delete'; path: string }
  | { command: 'rename'; old_path: string; new_path: string };

export interface MemoryResult {
  result: string;
  is_error: boolean;
}

export async function runMemoryCommand(rc: RequestContext, cmd: MemoryCommand): Promise<MemoryResult> {
  try {
    return { result: await dispatch(rc, cmd), is_error: false };
  } catch (err) {
    if (err instanceof MemoryToolError) return { result: err.message, is_error: true };
    throw err;
  }
}

async function dispatch(rc: RequestContext, cmd: MemoryCommand): Promise<string> {
  if (cmd.command === 'rename') return rename(rc, cmd);
  const path = resolveMemoryPath(cmd.path, memoryRootOf(rc));
  const tree = await loadMemoryTree(rc);
  switch (cmd.command) {
    case 'view':
      return view(rc, tree, path, cmd.view_range);
    case 'create':
      return create(rc, tree, path, cmd.file_text);
    case 'str_replace':
      return strReplace(rc, tree, path, cmd.old_str, cmd.new_str);
    case 'insert':
      return insert(rc, tree, path, cmd.insert_line, cmd.insert_text);
    case 'delete':
      return remove(rc, tree, path);
  }
}

const noSuchPath = (given: string) =>
  new MemoryToolError(`The path ${given} does not exist. Please provide a valid path.`);

async function view(rc: RequestContext, tree: MemoryTree, path: MemoryPath, range?: number[]) {
  if (tree.dirs.has(path.drivePath)) return listingOf(tree, path.drivePath, path.given);
  if (!tree.files.has(path.drivePath)) throw noSuchPath(path.given);
  return fileView(path.given, await fileText(rc, path), range);
}

async function fileText(rc: RequestContext, path: MemoryPath): Promise<string> {
  return (await blobBytes(rc, await artifactContent(rc, { path: path.drivePath }))).toString('utf8');
}

/**
 * A file's parent folders below the memory prefix, made as `mkdir -p` makes them (folder rows, so an emptied folder
 * stays listed).
 */
async function makeParents(rc: RequestContext, tree: MemoryTree, path: MemoryPath) {
  const parts = path.drivePath.split('/');
  for (let i = tree.root.split('/').length + 1; i < parts.length; i++) {
    const dir = parts.slice(0, i).join('/');
    if (tree.files.has(dir)) throw new MemoryToolError(`[Errno 20] Not a directory: '${dir}'`);
    if (!tree.dirs.has(dir)) (await createFolder(rc, { path: dir }), tree.dirs.add(dir));
  }
}

/** Writes a file's text: a new version (If-Match the version read) or a new artifact keeping the original name. */
async function writeText(rc: RequestContext, path: MemoryPath, text: string, ifMatch?: number) {
  const bytes = Buffer.from(text, 'utf8');
  const name = path.segments[path.segments.length - 1];
  await uploadArtifact(
    rc,
    { path: path.drivePath, contentType: 'text/plain; charset=utf-8', filename: name, ifMatch },
    { stream: Readable.from([bytes]), declaredBytes: bytes.length },
  );
}

async function create(rc: RequestContext, tree: MemoryTree, path: MemoryPath, text: string) {
  await makeParents(rc, tree, path);
  if (tree.files.has(path.drivePath) || tree.dirs.has(path.drivePath))
    throw new MemoryToolError(`File ${path.given} already exists`);
  await writeText(rc, path, text);
  return `File created successfully at: ${path.given}`;
}

function existingFile(tree: MemoryTree, path: MemoryPath) {
  if (tree.dirs.has(path.drivePath)) throw new MemoryToolError(`The path ${path.given} is not a file.`);
  const file = tree.files.get(path.drivePath);
  if (!file) throw noSuchPath(path.given);
  return file;
}

/** Python's str.find positions of `needle`, each search starting one code point past the last hit. */
function positions(text: string, needle: string): number[] {
  const found: number[] = [];
  for (let pos = text.indexOf(needle); pos !== -1 && found.length <= text.length;) {
    found.push(pos);
    const step = (text.codePointAt(pos) ?? 0) > 0xffff ? 2 : 1;
    pos = pos + step > text.length ? -1 : text.indexOf(needle, pos + step);
  }
  return found;
}

/** Python's str.count: non-overlapping occurrences (an empty needle counts every code point boundary). */
function countOf(text: string, needle: string): number {
  if (!needle) return [...text].length + 1;
  let n = 0;
  for (let pos = text.indexOf(needle); pos !== -1; pos = text.indexOf(needle, pos + needle.length)) n++;
  return n;
}

const lineOf = (text: string, pos: number) => text.slice(0, pos).split('\n').length;

async function strReplace(rc: RequestContext, tree: MemoryTree, path: MemoryPath, oldStr: string, newStr: string) {
  const file = existingFile(tree, path);
  const content = await fileText(rc, path);
  const count = countOf(content, oldStr);
  if (count === 0)
    throw new MemoryToolError(
      `No replacement was performed, old_str \`${oldStr}\` did not appear verbatim in ${path.given}.`,
    );
  if (count > 1) {
    const lines = positions(content, oldStr).map((pos) => lineOf(content, pos));
    throw new MemoryToolError(
      `No replacement was performed. Multiple occurrences of old_str \`${oldStr}\` in lines: ${lines.join(', ')}. ` +
        'Please ensure it is unique',
    );
  }
  const pos = content.indexOf(oldStr);
  const changed = lineOf(content, pos) - 1;
  const next = content.slice(0, pos) + newStr + content.slice(pos + oldStr.length);
  await writeText(rc, path, next, file.version);
  const lines = next.split('\n');
  const snippet: string[] = [];
  for (let n = Math.max(0, changed - 2) + 1; n <= Math.min(lines.length, changed + 3); n++)
    snippet.push(numberedLine(n, lines[n - 1]));
  return `The memory file has been edited. Here is the snippet showing the change (with line numbers):\n${snippet.join('\n')}`;
}

async function insert(rc: RequestContext, tree: MemoryTree, path: MemoryPath, at: number, text: string) {
  const file = existingFile(tree, path);
  const content = await fileText(rc, path);
  const lines = content.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  if (at < 0 || at > lines.length)
    throw new MemoryToolError(
      `Invalid \`insert_line\` parameter: ${at}. It should be within the range [0, ${lines.length}].`,
    );
  lines.splice(at, 0, text.replace(/\n+$/, ''));
  const next = lines.join('\n');
  await writeText(rc, path, next.endsWith('\n') ? next : `${next}\n`, file.version);
  return `The file ${path.given} has been edited.`;
}

async function remove(rc: RequestContext, tree: MemoryTree, path: MemoryPath) {
  if (path.isRoot) throw new MemoryToolError('Cannot delete the /memories directory itself');
  const file = tree.files.get(path.drivePath);
  if (file) await deleteByRef(rc, { ref: file.artId, recursive: false, ifMatch: file.version });
  else if (tree.dirs.has(path.drivePath)) await deleteByRef(rc, { ref: `${path.drivePath}/`, recursive: true });
  else throw new MemoryToolError(`The path ${path.given} does not exist`);
  return `Successfully deleted ${path.given}`;
}

async function rename(rc: RequestContext, cmd: { old_path: string; new_path: string }) {
  const root = memoryRootOf(rc);
  const from = resolveMemoryPath(cmd.old_path, root);
  const to = resolveMemoryPath(cmd.new_path, root);
  if (from.isRoot) throw new MemoryToolError('Cannot rename the /memories directory itself');
  const tree = await loadMemoryTree(rc);
  if (tree.files.has(to.drivePath) || tree.dirs.has(to.drivePath))
    throw new MemoryToolError(`The destination ${cmd.new_path} already exists`);
  await makeParents(rc, tree, to);
  const file = tree.files.get(from.drivePath);
  if (file) await moveByRef(rc, { ref: file.artId, path: to.drivePath, ifMatch: file.version });
  else if (tree.dirs.has(from.drivePath)) await moveByRef(rc, { ref: `${from.drivePath}/`, path: to.drivePath });
  else throw new MemoryToolError(`The path ${cmd.old_path} does not exist`);
  return `Successfully renamed ${cmd.old_path} to ${cmd.new_path}`;
}
