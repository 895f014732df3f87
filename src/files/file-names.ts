import { AppError } from '../lib/errors.js';

/**
 * The one rule that turns a person's file name into a spec path segment (docs/decisions/artifacts.md, "Names"):
 * accents folded (NFKD, combining marks dropped), each run of spaces to `-`, every other character outside
 * `[A-Za-z0-9_.-]` dropped, runs of `-` folded to one, `-` dropped beside a `.` and at the ends, leading dots dropped
 * (no hidden files); nothing left → `file`. Two different names that map to one path in one batch are numbered
 * (`a.md`, `a-2.md`). The web upload, the CLI (`put`, `sync`) and the REST helper all use it.
 */
export function segmentForName(name: string): string {
  // A name the spec already allows is its own path.
  if (/^[A-Za-z0-9_.-]{1,200}$/.test(name) && name !== '.' && name !== '..') return name;
  const folded = name
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .replace(/ß/g, 'ss')
    .replace(/\s+/gu, '-')
    .replace(/[^A-Za-z0-9_.-]+/g, '')
    .replace(/-{2,}/g, '-')
    .replace(/-*\.-*/g, '.')
    .replace(/^[-.]+|-+$/g, '');
  return folded.slice(0, 200) || 'file';
}

/** A relative name (`a b/c d.md`, either slash): each segment mapped; `.`, `..` and empty segments dropped. */
export function pathForName(name: string): { path: string; mapped: boolean } {
  const segments = name.split(/[\\/]+/).filter((s) => s !== '' && s !== '.' && s !== '..');
  const path = segments.map(segmentForName).join('/') || 'file';
  return { path, mapped: path !== name };
}

/**
 * A path a person typed (web New folder, rename, move, copy): mapped by the name rule, so "Web uploads (Zoë)" is
 * `Web-uploads-Zoe`; a blank one stays blank for the path rule to refuse (never `file`).
 */
export function pathFromPerson(typed: string): { path: string; mapped: boolean } {
  const given = typed.trim();
  if (!given.replace(/[\\/.\s]+/g, '')) return { path: given, mapped: false };
  return pathForName(given);
}

/** Names mapped one by one as one batch: a path two different names would share is numbered (`-2`, `-3`…). */
export function nameBatch() {
  const taken = new Map<string, string>();
  return (name: string): { name: string; path: string; mapped: boolean } => {
    const base = pathForName(name).path;
    let path = base;
    for (let n = 2; taken.has(path) && taken.get(path) !== name; n++) path = numbered(base, n);
    taken.set(path, name);
    return { name, path, mapped: path !== name };
  };
}

/** Several names as one batch (GET /v0/paths/suggest). */
export const pathsForNames = (names: string[]) => names.map(nameBatch());

const numbered = (path: string, n: number) => {
  const slash = path.lastIndexOf('/');
  const dot = path.lastIndexOf('.');
  return dot > slash + 1 ? `${path.slice(0, dot)}-${n}${path.slice(dot)}` : `${path}-${n}`;
};

/**
 * The original name kept beside the path (X-Drive-Filename): NFC, 1-255 characters, no control character, no slash, no
 * Unicode format character (Cf: bidi overrides such as U+202E turn `invoice\u202Efdp.exe` into what reads as
 * `invoiceexe.pdf`, zero-width characters hide a difference).
 */
export function checkFilename(given: string): string {
  const name = given.normalize('NFC');
  if (name.length < 1 || name.length > 255 || /[\u0000-\u001f\u007f/\\]/.test(name))
    throw new AppError('INVALID_FILENAME', 'the file name must be 1-255 characters with no slash or control character');
  if (/\p{Cf}/u.test(name))
    throw new AppError(
      'INVALID_FILENAME',
      'the file name must have no invisible or bidi format character (Unicode Cf)',
    );
  return name;
}

const lastSegment = (path: string) => path.slice(path.lastIndexOf('/') + 1);

/**
 * Whether an original name still describes `path`: the name rule maps it to the path's last segment. A download names
 * the file with it only then, and a write keeps it only then (keptFilename), so the uploader never picks the name a
 * downloader's file gets (`report.md` sent as `.bashrc`).
 */
const describes = (path: string, filename: string) => segmentForName(filename) === lastSegment(path);

/**
 * The name a write keeps for `path` (docs/decisions/artifacts.md, "The original name"): the checked name while it maps
 * to the path's last segment, else none (a name numbered apart in a batch, `a b.md` at `a-b-2.md`, is not kept either).
 */
export function keptFilename(path: string, given: string | undefined): string | undefined {
  if (given === undefined) return undefined;
  const name = checkFilename(given);
  return describes(path, name) ? name : undefined;
}

/** The name a download carries: the original one while it still describes the path's last segment, else the segment. */
export function downloadName(path: string, filename: string | null | undefined): string {
  return filename && describes(path, filename) ? filename : lastSegment(path);
}
