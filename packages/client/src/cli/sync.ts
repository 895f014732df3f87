import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Command } from 'commander';
import { ok, type DriveClient } from '../client.js';
import { DriveError } from '../errors.js';
import { suggestPaths } from '../names.js';
import { eachItem } from '../paging.js';
import { uploadFile } from '../uploads.js';
import { contentTypeOf, globals } from './command-kit.js';
import { emit } from './output.js';
import { driveClient, invocationRunId } from './session.js';

/** One local file and where it goes. */
interface Planned {
  file: string;
  remote: string;
  hash: string;
  /** The local name, when the path was mapped from it. */
  filename?: string;
}

/** `sync <dir> <prefix>`: one-way upload of the files whose content hash differs from the drive's. */
export function addSyncCommand(program: Command): void {
  program
    .command('sync')
    .description(
      'upload the files of a local folder under a path prefix, only those whose content changed (by SHA-256)',
    )
    .argument('<dir>', 'local folder')
    .argument('<prefix>', 'path prefix in the drive')
    .option('--dry-run', 'say what would be uploaded, upload nothing')
    .option('--all', 'include .git, node_modules and dotfiles (.gitignore and .driveignore still apply)')
    .action(async (dir: string, prefix: string, opts: { dryRun?: boolean; all?: boolean }, cmd: Command) => {
      const g = globals(cmd);
      const client = driveClient(g, { runId: opts.dryRun ? undefined : invocationRunId('sync') });
      const base = prefix.replace(/^\/+|\/+$/g, '');
      const remoteHashes = await remoteHashesUnder(client, base ? `${base}/` : '');
      const local = await localFiles(dir, !!opts.all);
      // Local names as people have them, mapped to paths by the server's one rule (one batch: collisions numbered).
      const names = await suggestPaths(
        client,
        local.map((file) => path.relative(dir, file).split(path.sep).join('/')),
      );
      const changed: Planned[] = [];
      const unchanged: string[] = [];
      for (const [i, file] of local.entries()) {
        const named = names[i];
        const remote = [base, named.path].filter(Boolean).join('/');
        if (named.mapped && !g.json) process.stderr.write(`${named.name} → ${named.path}\n`);
        const hash = await sha256Of(file);
        const filename = named.mapped ? path.basename(file) : undefined;
        if (remoteHashes.get(remote) === hash) unchanged.push(remote);
        else changed.push({ file, remote, hash, filename });
      }
      const failed: { path: string; code: string; message: string }[] = [];
      const uploaded: string[] = [];
      if (!opts.dryRun)
        for (const item of changed) {
          try {
            await uploadFile(client, item.remote, item.file, {
              contentType: contentTypeOf(item.file),
              filename: item.filename,
            });
            uploaded.push(item.remote);
            if (!g.json) process.stdout.write(`uploaded ${item.remote}\n`);
          } catch (err) {
            if (!(err instanceof DriveError)) throw err;
            failed.push({ path: item.remote, code: err.code, message: err.message });
            process.stderr.write(`failed ${item.remote}: ${err.code} ${err.message}\n`);
          }
        }
      const planned = changed.map((c) => c.remote);
      emit(
        g.json,
        {
          dry_run: !!opts.dryRun,
          uploaded,
          would_upload: opts.dryRun ? planned : [],
          unchanged,
          failed,
          run_id: client.runId ?? null,
        },
        () => [
          ...(opts.dryRun ? planned.map((p) => `would upload ${p}`) : []),
          opts.dryRun
            ? `${planned.length} to upload, ${unchanged.length} unchanged (dry run)`
            : `${uploaded.length} uploaded, ${unchanged.length} unchanged, ${failed.length} failed`,
          ...(uploaded.length ? [`run ${client.runId}: \`agent-drive undo ${client.runId}\` reverts this sync`] : []),
        ],
      );
      if (failed.length) process.exitCode = 1;
    });
}

/** path → content hash of every live artifact under the prefix. */
async function remoteHashesUnder(client: DriveClient, prefix: string): Promise<Map<string, string>> {
  const hashes = new Map<string, string>();
  const pages = eachItem((cursor) =>
    ok(client.api.GET('/v0/artifacts', { params: { query: { prefix, cursor, limit: 100 } } })),
  );
  for await (const a of pages) hashes.set(a.path, a.hash.replace(/^sha256:/, ''));
  return hashes;
}

/**
 * Regular files under dir, recursively, in a stable order; symbolic links are not followed. Skipped: `.git`,
 * `node_modules` and dotfiles (unless `all`), and what the root's `.gitignore` and `.driveignore` name.
 */
async function localFiles(dir: string, all: boolean): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const ignored = await ignoreRules(dir);
  return entries
    .filter((e) => e.isFile())
    .map((e) => path.join(e.parentPath, e.name))
    .filter((file) => {
      const rel = path.relative(dir, file).split(path.sep);
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

async function sha256Of(file: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(file), hash);
  return hash.digest('hex');
}
