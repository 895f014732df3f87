import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';

/** The local side of `sync`: which files count (ignores) and their content hashes. */

/** The sync's own state folder, never synced. */
export const STATE_DIR = '.agent-drive';

/**
 * Regular files under dir, recursively, in a stable order; symbolic links are not followed. Skipped: `.git`,
 * `node_modules` and dotfiles (unless `all`), and what the root's `.gitignore` and `.driveignore` name.
 */
export async function localFiles(dir: string, all: boolean): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const ignored = await ignoreRules(dir);
  return entries
    .filter((e) => e.isFile())
    .map((e) => path.join(e.parentPath, e.name))
    .filter((file) => {
      const rel = path.relative(dir, file).split(path.sep);
      if (rel[0] === STATE_DIR) return false;
      if (!all && rel.some((seg) => seg.startsWith('.') || seg === 'node_modules')) return false;
      return !ignored(rel);
    })
    .sort();
}

/**
 * The common subset of gitignore patterns: one per line, `#` comments, `*` and `?` within a segment, `**` across
 * segments, a trailing `/` for folders, a leading `/` anchored at the root; `!` negations are not supported.
 */
async function ignoreRules(dir: string): Promise<(rel: string[]) => boolean> {
  const lines: string[] = [];
  for (const name of ['.gitignore', '.driveignore'])
    lines.push(...(await readFile(path.join(dir, name), 'utf8').catch(() => '')).split(/\r?\n/));
  const patterns = lines
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#') && !l.startsWith('!'))
    .map((l) => {
      const anchored = l.startsWith('/') || l.replace(/\/$/, '').includes('/');
      const body = l
        .replace(/^\/|\/$/g, '')
        .replace(/[.+^${}()|[\]\\]/g, '\\$&')
        .replace(/\*\*/g, '\u0000')
        .replace(/\*/g, '[^/]*')
        .replace(/\?/g, '[^/]')
        .replace(/\u0000/g, '.*');
      return new RegExp(`${anchored ? '^' : '(^|/)'}${body}(/|$)`);
    });
  return (rel) => patterns.some((re) => re.test(rel.join('/')));
}

export async function sha256Of(file: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(file), hash);
  return hash.digest('hex');
}

/** Local files as sync sees them: relative name (with `/`) → bytes and SHA-256. */
export interface LocalFile {
  rel: string;
  file: string;
  hash: string;
  bytes: Buffer;
}

export async function scanLocal(dir: string, all: boolean): Promise<Map<string, LocalFile>> {
  const out = new Map<string, LocalFile>();
  for (const file of await localFiles(dir, all)) {
    const bytes = await readFile(file).catch(() => undefined);
    if (!bytes) continue; // removed while scanning
    const rel = path.relative(dir, file).split(path.sep).join('/');
    out.set(rel, { rel, file, bytes, hash: createHash('sha256').update(bytes).digest('hex') });
  }
  return out;
}
