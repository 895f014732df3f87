import { randomBytes } from 'node:crypto';
import { constants, createWriteStream } from 'node:fs';
import { copyFile, link, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { DriveError } from '../errors.js';

/**
 * Where `get` writes, and how (issue 54): the name comes from the server's download answer (its one rule: the kept
 * original name only while it maps to the path's last segment), is refused when it could name something other than
 * a plain file of the working directory, and an existing file is never replaced without `--force`.
 */

/** Windows device names, with or without an extension (`NUL.txt` is the device too). */
const DEVICE = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³]|conin\$|conout\$|clock\$)(\..*)?$/i;

/**
 * A name the server chose, checked before it becomes a local file: one segment, visible (no leading `.`: `.bashrc`,
 * `.ssh`), no control or format character, no device name. Refused with a usage error that says how to go on.
 */
export function safeLocalName(name: string): string {
  const why =
    name === '' || name === '.' || name === '..' || /[/\\]/.test(name)
      ? 'is not a single file name'
      : name.startsWith('.')
        ? 'would be a hidden file'
        : /[\p{Cc}\p{Cf}]/u.test(name)
          ? 'has control or invisible characters'
          : DEVICE.test(name.replace(/[. ]+$/, ''))
            ? 'is a device name'
            : null;
  if (why)
    throw new DriveError(0, 'USAGE', `the artifact's name ${JSON.stringify(name)} ${why}: give a local file name`);
  return name;
}

/** The name in a Content-Disposition answer: `filename*` (RFC 8187) first, else the quoted ASCII `filename`. */
export function dispositionName(value: string | null): string | undefined {
  if (!value) return undefined;
  const exact = /filename\*\s*=\s*UTF-8''([^;\s]+)/i.exec(value);
  if (exact) {
    try {
      return decodeURIComponent(exact[1]);
    } catch {
      // undecodable: fall back to the ASCII form
    }
  }
  return /filename\s*=\s*"([^"]*)"/i.exec(value)?.[1] || undefined;
}

export const fileExists = (target: string) =>
  new DriveError(0, 'FILE_EXISTS', `${target} exists: not replaced (--force replaces it)`);

/**
 * Writes `source` to `target` through a temporary file beside it, then puts it in place: with `force` by rename
 * (atomic replace), else by a hard link, which fails when `target` exists (even if it appeared meanwhile), so nothing
 * is ever replaced by accident; a file system without hard links gets an exclusive copy instead.
 */
export async function writeNewFile(
  target: string,
  source: Readable,
  through: Transform,
  opts: { force?: boolean },
): Promise<void> {
  const tmp = join(dirname(target), `.${basename(target)}.${randomBytes(6).toString('hex')}.part`);
  try {
    await pipeline(source, through, createWriteStream(tmp, { flags: 'wx' }));
    if (opts.force) return await rename(tmp, target);
    await link(tmp, target).catch(async (err: NodeJS.ErrnoException) => {
      if (err.code === 'EEXIST') throw fileExists(target);
      if (err.code !== 'EPERM' && err.code !== 'ENOTSUP' && err.code !== 'ENOSYS') throw err;
      await copyFile(tmp, target, constants.COPYFILE_EXCL).catch((e: NodeJS.ErrnoException) => {
        throw e.code === 'EEXIST' ? fileExists(target) : e;
      });
    });
  } finally {
    await unlink(tmp).catch(() => undefined);
  }
}
