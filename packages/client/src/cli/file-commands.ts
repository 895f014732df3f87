import { existsSync, statSync } from 'node:fs';
import { basename, join, sep } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import type { Command } from 'commander';
import { ok, type DriveClient } from '../client.js';
import { DriveError } from '../errors.js';
import { suggestPaths } from '../names.js';
import { allItems } from '../paging.js';
import type { paths } from '../schema.js';
import type { ArtifactOut } from '../types.js';
import { uploadBytes, uploadFile } from '../uploads.js';
import { seqOf, type Point } from '../history.js';
import { collectLabels, contentTypeOf, globals, parseMetadata, pointArg, positiveInt } from './command-kit.js';
import { emit, humanSize, progressBar, table } from './output.js';
import { dispositionName, fileExists, safeLocalName, writeNewFile } from './local-file.js';
import { driveClient, resolveArtifact } from './session.js';

type FileType = NonNullable<NonNullable<paths['/v0/artifacts']['get']['parameters']['query']>['file_type']>;

const artifactLine = (a: ArtifactOut) => `${a.path}  (${a.art_id}, v${a.version_number}, ${humanSize(a.size_bytes)})`;

const TEXTUAL = /^(text\/|application\/(json|xml|yaml|javascript|x-tex|x-typst)|image\/svg\+xml)/i;

/** A local target that names a directory: ends in a separator, or is one already. */
const isDirectoryTarget = (file: string) => file.endsWith('/') || file.endsWith(sep) || isDirectory(file);
const isDirectory = (file: string) => {
  try {
    return statSync(file).isDirectory();
  } catch {
    return false;
  }
};

/**
 * Where `put <file> [path]` writes: the given path (or, none or a folder ending in /, the file's name there), mapped by
 * the server's name rule; a mapping is said on stderr and a mapped last segment kept as the original file name.
 */
async function targetPath(client: DriveClient, file: string, path: string | undefined) {
  const typed = path === undefined || path.endsWith('/') ? `${path ?? ''}${basename(file)}` : path;
  const [named] = await suggestPaths(client, [typed]);
  if (named.mapped) process.stderr.write(`${named.name} → ${named.path}\n`);
  const given = lastSegment(typed);
  return { path: named.path, filename: given !== lastSegment(named.path) ? given : undefined };
}
const lastSegment = (path: string) => path.slice(path.lastIndexOf('/') + 1);

/** A path with the name a person gave it, when one is kept (ls). */
const keptBeside = (a: ArtifactOut) =>
  a.filename && a.filename !== lastSegment(a.path) ? `${a.path}  (uploaded as "${a.filename}")` : a.path;

/** ls, cat, get, put, mv, cp, mkdir, rm, restore, versions. */
export function addFileCommands(program: Command): void {
  program
    .command('ls')
    .description('list artifacts under a path prefix, sorted by path')
    .argument('[prefix]', 'path prefix', '')
    .option('--label <labels>', 'only artifacts with these labels (comma-separated, repeatable)', collectLabels)
    .option('--file-type <type>', 'only this file type')
    .option('--as-of <point>', 'the drive as it was right after this seq, or at this snapshot (snp_…)', pointArg)
    .action(async (prefix: string, opts: { label?: string[]; fileType?: string; asOf?: Point }, cmd: Command) => {
      const client = driveClient(globals(cmd));
      const asOf = opts.asOf === undefined ? undefined : await seqOf(client, opts.asOf);
      const items = await allItems((cursor) =>
        ok(
          client.api.GET('/v0/artifacts', {
            params: {
              query: {
                prefix,
                label: opts.label,
                file_type: opts.fileType as FileType | undefined,
                as_of: asOf,
                cursor,
                limit: 100,
              },
            },
          }),
        ),
      );
      emit(globals(cmd).json, items, () =>
        table(items.map((a) => [keptBeside(a), humanSize(a.size_bytes), `v${a.version_number}`, a.updated_at])),
      );
    });

  program
    .command('cat')
    .description('print an artifact (by path or art_ id) to stdout')
    .argument('<artifact>', 'path or art_ id')
    .option('--version <n>', 'print this earlier version', positiveInt)
    .option(
      '--as-of <point>',
      'print it as it was at this seq or snapshot (snp_…), in the trash since or not',
      pointArg,
    )
    .option('--force', 'print binary content to a terminal too')
    .action(async (ref: string, opts: GetOptions, cmd: Command) => {
      const client = driveClient(globals(cmd));
      const asOf = opts.asOf === undefined ? undefined : await seqOf(client, opts.asOf);
      const artifact = await resolveArtifact(client, ref, asOf);
      // Binary bytes would garble a terminal: refused there unless forced (a pipe or a file gets them).
      if (process.stdout.isTTY && !opts.force && !TEXTUAL.test(artifact.content_type))
        throw new DriveError(
          0,
          'USAGE',
          `${artifact.path} is ${artifact.content_type}, not text: use get to save it, or cat --force`,
        );
      await saveDownload(await openDownload(client, artifact, opts.version, asOf), artifact, '-');
    });

  program
    .command('get')
    .description('download an artifact to a local file (an existing file is kept unless --force)')
    .argument('<artifact>', 'path or art_ id')
    .argument('[file]', "local file (default: the server's download name; - for stdout)")
    .option('--version <n>', 'download this earlier version', positiveInt)
    .option('--as-of <point>', 'the file as it was at this seq or snapshot (snp_…)', pointArg)
    .option('--force', 'replace an existing local file')
    .action(async (ref: string, file: string | undefined, opts: GetOptions, cmd: Command) => {
      const client = driveClient(globals(cmd));
      const asOf = opts.asOf === undefined ? undefined : await seqOf(client, opts.asOf);
      const artifact = await resolveArtifact(client, ref, asOf);
      const res = await openDownload(client, artifact, opts.version, asOf);
      // The server names the bytes by its one rule (the original name only while it maps to the path); that name,
      // chosen by whoever uploaded, must still be a plain visible file name here.
      const named = () =>
        join(
          file ?? '',
          safeLocalName(dispositionName(res.headers.get('content-disposition')) ?? basename(artifact.path)),
        );
      const target = file === undefined || (file !== '-' && isDirectoryTarget(file)) ? named() : file;
      if (target !== '-' && !opts.force && existsSync(target)) {
        await res.body?.cancel();
        throw fileExists(target);
      }
      await saveDownload(res, artifact, target, opts.force);
      if (target !== '-') emit(globals(cmd).json, { ...artifact, file: target }, () => `${artifact.path} → ${target}`);
    });

  program
    .command('put')
    .description('upload a local file (or - for stdin) to a path; an existing path gets a new version')
    .argument('<file>', 'local file, or - to read stdin')
    .argument('[path]', 'path in the drive, or a folder ending in / (default: the file name, mapped to path rules)')
    .option('--label <labels>', 'labels, comma-separated (repeatable)', collectLabels)
    .option('--metadata <json>', 'metadata, a JSON object', parseMetadata)
    .option('--content-type <type>', 'content type (default: from the extension)')
    .option('--message <summary>', 'change summary recorded on the version')
    .option('--if-match <version>', 'only if the current version is this one (else exit 4)', positiveInt)
    .option('--merge', 'with an older --if-match: merge three-way with the current version (conflict: exit 4)')
    .action(async (file: string, path: string | undefined, opts: PutOptions, cmd: Command) => {
      const client = driveClient(globals(cmd));
      if (opts.merge && opts.ifMatch === undefined)
        throw new DriveError(0, 'USAGE', '--merge needs --if-match: the version the file was edited from');
      if (file === '-' && (path === undefined || path.endsWith('/')))
        throw new DriveError(0, 'USAGE', 'put from stdin needs a path with a file name');
      const named = await targetPath(client, file, path);
      const target = named.path;
      const options = {
        filename: named.filename,
        contentType: opts.contentType ?? contentTypeOf(target),
        labels: opts.label,
        metadata: opts.metadata,
        changeSummary: opts.message,
        ifMatch: opts.ifMatch,
        merge: opts.merge,
        bufferedLimit: bufferedLimit(),
      };
      const artifact =
        file === '-'
          ? await uploadBytes(client, target, await readStdin(), options)
          : await uploadFile(client, target, file, { ...options, onProgress: progressFor(`put ${target}`) });
      emit(globals(cmd).json, artifact, () => artifactLine(artifact));
    });

  program
    .command('mv')
    .description('rename or move an artifact (its id and history stay)')
    .argument('<artifact>', 'path or art_ id')
    .argument('<path>', 'new path')
    .action(async (ref: string, to: string, _opts: object, cmd: Command) => {
      const client = driveClient(globals(cmd));
      const { art_id } = await resolveArtifact(client, ref);
      const moved = await ok(
        client.api.PATCH('/v0/artifacts/{art_id}', { params: { path: { art_id } }, body: { path: to } }),
      );
      emit(globals(cmd).json, moved, () => artifactLine(moved));
    });

  program
    .command('cp')
    .description('copy an artifact to a new path (a new id, version 1)')
    .argument('<artifact>', 'path or art_ id')
    .argument('<path>', 'path of the copy')
    .action(async (ref: string, to: string, _opts: object, cmd: Command) => {
      const client = driveClient(globals(cmd));
      const { art_id } = await resolveArtifact(client, ref);
      const copy = await ok(
        client.api.POST('/v0/artifacts/{art_id}/copy', { params: { path: { art_id } }, body: { path: to } }),
      );
      emit(globals(cmd).json, copy, () => artifactLine(copy));
    });

  program
    .command('mkdir')
    .description('make a folder (and its parents); an existing one is kept')
    .argument('<path>', 'folder path')
    .option('--description <text>', 'what the folder holds')
    .action(async (path: string, opts: { description?: string }, cmd: Command) => {
      const client = driveClient(globals(cmd));
      const folder = await ok(
        client.api.POST('/v0/folders/{path}', {
          params: { path: { path: path.replace(/^\/+|\/+$/g, '') } },
          body: opts.description !== undefined ? { description: opts.description } : {},
        }),
      );
      emit(globals(cmd).json, folder, () => `${folder.path}  (${folder.fld_id})`);
    });

  program
    .command('rm')
    .description('move an artifact to the trash (restorable until purge_at)')
    .argument('<artifact>', 'path or art_ id')
    .action(async (ref: string, _opts: object, cmd: Command) => {
      const client = driveClient(globals(cmd));
      const { art_id } = await resolveArtifact(client, ref);
      const gone = await ok(client.api.DELETE('/v0/artifacts/{art_id}', { params: { path: { art_id } } }));
      emit(globals(cmd).json, gone, () => `${gone.path} → trash (${gone.art_id}; purged at ${gone.purge_at})`);
    });

  program
    .command('restore')
    .description('bring an artifact back from the trash, or (--version N) make version N current again')
    .argument('<artifact>', 'art_ id, or the path it had (the latest deleted one); with --version, a live one')
    .option('--rename <path>', 'restore under this path instead')
    .option('--overwrite', 'replace a live artifact at the path (it goes to the trash)')
    .option('--version <n>', "a new current version with version n's bytes, labels and metadata", positiveInt)
    .option(
      '--if-match <version>',
      'with --version: only if the current version is this one (else exit 4)',
      positiveInt,
    )
    .action(async (ref: string, opts: RestoreOptions, cmd: Command) => {
      const client = driveClient(globals(cmd));
      if (opts.version !== undefined) {
        if (opts.rename !== undefined || opts.overwrite)
          throw new DriveError(
            0,
            'USAGE',
            '--version restores a live file; --rename and --overwrite are for the trash',
          );
        const { art_id } = await resolveArtifact(client, ref);
        const path = { art_id, version_number: opts.version };
        const header = { 'if-match': opts.ifMatch !== undefined ? String(opts.ifMatch) : undefined };
        const back = await ok(
          client.api.POST('/v0/artifacts/{art_id}/versions/{version_number}/restore', { params: { path, header } }),
        );
        emit(globals(cmd).json, back, () => `restored version ${opts.version} as ${artifactLine(back)}`);
        return;
      }
      const art_id = /^art_/.test(ref) ? ref : await trashedId(client, ref);
      const query = { rename: opts.rename, overwrite: opts.overwrite ? ('true' as const) : undefined };
      const back = await ok(client.api.POST('/v0/artifacts/{art_id}/restore', { params: { path: { art_id }, query } }));
      emit(globals(cmd).json, back, () => `restored ${artifactLine(back)}`);
    });

  program
    .command('versions')
    .description("list an artifact's versions, newest first")
    .argument('<artifact>', 'path or art_ id')
    .action(async (ref: string, _opts: object, cmd: Command) => {
      const client = driveClient(globals(cmd));
      const { art_id } = await resolveArtifact(client, ref);
      const versions = await allItems((cursor) =>
        ok(
          client.api.GET('/v0/artifacts/{art_id}/versions', {
            params: { path: { art_id }, query: { cursor, limit: 100 } },
          }),
        ),
      );
      emit(globals(cmd).json, versions, () =>
        table(
          versions.map((v) => [
            `v${v.version_number}`,
            humanSize(v.size_bytes),
            v.created_at,
            v.actor_name ?? '',
            v.change_summary ?? '',
          ]),
        ),
      );
    });
}

interface PutOptions {
  label?: string[];
  metadata?: Record<string, unknown>;
  contentType?: string;
  message?: string;
  ifMatch?: number;
  merge?: boolean;
}

/** Files above this go through /v0/uploads; AGENT_DRIVE_BUFFERED_LIMIT lowers it (tests, small proxies). */
const bufferedLimit = () =>
  process.env.AGENT_DRIVE_BUFFERED_LIMIT ? Number(process.env.AGENT_DRIVE_BUFFERED_LIMIT) : undefined;

/** A progress bar created on the first report, once the total is known. */
function progressFor(label: string) {
  let bar: ReturnType<typeof progressBar> | null = null;
  return (sent: number, total: number) => {
    bar ??= progressBar(label, total) ?? null;
    bar?.(sent, total);
  };
}

async function readStdin(): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Asks for an artifact's bytes (a version's with `version`); the answer's headers name them. */
async function openDownload(client: DriveClient, artifact: ArtifactOut, version?: number, asOf?: number) {
  // as_of: the version it had then (the artifact may be in the trash now); else the current one or `version`.
  const at = asOf === undefined && version !== undefined ? `/versions/${version}` : '';
  const query = asOf === undefined ? '' : `?as_of=${asOf}`;
  const res = await client.fetch(`/v0/artifacts/${encodeURIComponent(artifact.art_id)}${at}/download${query}`);
  if (!res.ok || !res.body) throw await DriveError.fromResponse(res);
  return res;
}

/** Streams a download to stdout ('-') or a new local file (writeNewFile), with progress when large. */
async function saveDownload(res: Response, artifact: ArtifactOut, target: string, force?: boolean): Promise<void> {
  const bar = target === '-' ? undefined : progressBar(`get ${artifact.path}`, artifact.size_bytes);
  let done = 0;
  const count = new Transform({
    transform(chunk: Buffer, _enc, next) {
      bar?.((done += chunk.length));
      next(null, chunk);
    },
  });
  const body = Readable.fromWeb(res.body as WebReadableStream<Uint8Array>);
  if (target === '-') return pipeline(body, count, process.stdout, { end: false });
  await writeNewFile(target, body, count, { force });
}

interface GetOptions {
  version?: number;
  asOf?: Point;
  force?: boolean;
}

interface RestoreOptions {
  rename?: string;
  overwrite?: boolean;
  version?: number;
  ifMatch?: number;
}

/** The id of the most recently deleted artifact that had this path. */
async function trashedId(client: DriveClient, path: string): Promise<string> {
  const { drive_id } = await ok(client.api.GET('/v0/drives/me'));
  const trash = await allItems((cursor) =>
    ok(
      client.api.GET('/v0/drives/{drive_id}/trash', { params: { path: { drive_id }, query: { cursor, limit: 100 } } }),
    ),
  );
  const match = trash
    .filter((a) => a.path === path)
    .sort((a, b) => Date.parse(b.deleted_at ?? '') - Date.parse(a.deleted_at ?? ''))[0];
  if (!match) throw new DriveError(404, 'NOT_FOUND', `nothing at ${path} in the trash`);
  return match.art_id;
}
