import path from 'node:path';
import type { Command } from 'commander';
import { ok, type DriveClient } from '../client.js';
import { DriveError } from '../errors.js';
import { suggestPaths } from '../names.js';
import { eachItem } from '../paging.js';
import { uploadFile } from '../uploads.js';
import { contentTypeOf, globals } from './command-kit.js';
import { emit } from './output.js';
import { driveClient, invocationRunId } from './session.js';
import { localFiles, sha256Of } from './sync/local-scan.js';
import { syncOnce, syncWatch, type TwoWayOptions } from './sync/two-way.js';

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
    .option('--once', "one two-way pass: local changes up, the drive's down, both-sides edits merged")
    .option('--watch', 'two-way, continuously (until interrupted); state in <dir>/.agent-drive/')
    .action(async (dir: string, prefix: string, opts: SyncOptions, cmd: Command) => {
      const g = globals(cmd);
      if (opts.once || opts.watch) return twoWay(dir, prefix, opts, cmd);
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

interface SyncOptions {
  dryRun?: boolean;
  all?: boolean;
  once?: boolean;
  watch?: boolean;
}

async function twoWay(dir: string, prefix: string, opts: SyncOptions, cmd: Command): Promise<void> {
  const g = globals(cmd);
  if (opts.dryRun) throw new DriveError(0, 'USAGE', '--dry-run is for the one-way sync only');
  const o: TwoWayOptions = {
    dir,
    prefix: prefix.replace(/^\/+|\/+$/g, ''),
    all: !!opts.all,
    clientForPass: () => driveClient(g, { runId: invocationRunId('sync') }),
    log: (r, at) => {
      const lines = [
        ...r.up.map((p) => `up ${p}`),
        ...r.down.map((p) => `down ${p}`),
        ...r.deleted.map((p) => `deleted ${p}`),
        ...r.moved.map((p) => `moved ${p}`),
        ...r.merged.map((p) => `merged ${p}`),
        ...r.conflicts.map((p) => `conflict ${p}`),
      ];
      if (g.json) process.stdout.write(`${JSON.stringify({ at, ...r })}\n`);
      else if (lines.length) process.stdout.write(`${lines.join('\n')}\n`);
    },
  };
  if (opts.once) {
    await syncOnce(o);
    return;
  }
  const stop = new AbortController();
  // A pass in flight finishes (its state is saved); an HTTP request that hangs does not hold the exit past 3 s.
  const quit = () => (stop.abort(), setTimeout(() => process.exit(process.exitCode ?? 0), 3000).unref());
  for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, quit);
  process.stderr.write(`sync: watching ${dir} ⇄ ${o.prefix || '/'}\n`);
  await syncWatch(o, stop.signal);
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
