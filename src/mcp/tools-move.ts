import { z } from 'zod';
import { copyByRef, deleteByRef, moveByRef, restoreByRef } from '../files/ref-writes.js';
import { AppError } from '../lib/errors.js';
import { artifactDeleteOut, artifactOut } from '../shapes/artifacts.js';
import { folderDeleteOut, folderOut } from '../shapes/folders.js';
import { actorArg, anyRefArg, defineTool, refArg, writes, type ToolEnv, type ToolSet } from './tool-kit.js';
import { artifactLine } from './tools-browse.js';
import { ifMatchArg, pathArg, sourceArg } from './tools-write.js';

/**
 * Moving things and bringing them back: move, copy, delete (to the trash) and restore. Every delete answer names the
 * restore call that undoes it; no answer points at a /v0 URL, which an MCP OAuth token cannot open.
 */
export function registerMoveTools(server: ToolSet, env: ToolEnv): void {
  const { config } = env.app;
  const out = (row: Parameters<typeof artifactOut>[1]) => artifactOut(config, row);

  defineTool(
    server,
    env,
    'move',
    {
      title: 'Move or rename',
      description:
        'Moves an artifact (keeping id, versions, labels) or a folder with everything under it to a new path. ' +
        'Taken target: PATH_CONFLICT.',
      input: { from: anyRefArg, to: pathArg, if_match: ifMatchArg, actor: actorArg },
      annotations: writes(false, false),
      budget: 'write',
    },
    async (args, rc) => {
      const moved = await moveByRef(rc, { ref: args.from, path: args.to, ifMatch: args.if_match });
      if (moved.kind === 'artifact') {
        const a = out(moved.artifact);
        return {
          structured: { kind: 'artifact', from: moved.from.path, artifact: a },
          text: `Moved ${moved.from.path} → ${a.path} (${a.art_id})`,
        };
      }
      const f = folderOut(moved.folder);
      const from = `/${moved.from.path}/`;
      return { structured: { kind: 'folder', from, folder: f }, text: `Moved folder ${from} → ${f.path}` };
    },
  );

  defineTool(
    server,
    env,
    'copy',
    {
      title: 'Copy a file',
      description:
        'Copies an artifact to a new path: a new artifact (version 1, same bytes, labels, metadata) whose source ' +
        'points at the original. Taken target: PATH_CONFLICT.',
      input: { from: refArg, to: pathArg, source: sourceArg, actor: actorArg },
      annotations: writes(false, false),
      budget: 'write',
    },
    async (args, rc) => {
      const { from, copy } = await copyByRef(rc, { ref: args.from, path: args.to, source: args.source });
      const a = out(copy);
      return { structured: a, text: `Copied ${from.path} → ${artifactLine(a)}` };
    },
  );

  defineTool(
    server,
    env,
    'delete',
    {
      title: 'Delete (to trash)',
      description:
        'Moves an artifact or a folder (recursive=true when it has contents) to the trash until purge_at; restore ' +
        'brings it back.',
      input: { ref: anyRefArg, recursive: z.boolean().default(false), if_match: ifMatchArg, actor: actorArg },
      annotations: writes(true, false),
      budget: 'write',
    },
    async (args, rc) => {
      const deleted = await deleteByRef(rc, { ref: args.ref, recursive: args.recursive, ifMatch: args.if_match });
      if (deleted.kind === 'artifact') {
        const { restore_url: _rest, ...d } = artifactDeleteOut(config, deleted.artifact);
        const undo = `restore(ref="${d.art_id}")`;
        return {
          structured: { kind: 'artifact', artifact: d, undo },
          text: `Deleted ${d.path} (${d.art_id}); undo with ${undo} until ${d.purge_at}`,
        };
      }
      const d = folderDeleteOut(config, deleted.folder);
      const undo = `list(trash=true, prefix="${d.path.slice(1)}") shows its artifacts; restore(ref=art_id) each`;
      return {
        structured: { kind: 'folder', folder: d, undo },
        text: `Deleted folder ${d.path} with ${d.n_artifacts_deleted} artifact(s) and ${d.n_subfolders_deleted} subfolder(s) until ${d.purge_at}; ${undo}`,
      };
    },
  );

  defineTool(
    server,
    env,
    'restore',
    {
      title: 'Restore from trash, or an earlier version',
      description:
        'Brings a deleted artifact back (art_ id or old path); path taken: rename=new path or overwrite=true. ' +
        'version=N on a live artifact makes N current again (new version).',
      input: {
        ref: refArg,
        rename: pathArg.optional(),
        overwrite: z.boolean().default(false),
        version: z
          .number()
          .int()
          .min(1)
          .max(2 ** 31 - 1)
          .optional()
          .describe('make it current'),
        if_match: ifMatchArg,
        actor: actorArg,
      },
      annotations: writes(false, false),
      budget: 'write',
    },
    async (args, rc) => {
      if (args.rename !== undefined && args.overwrite)
        throw new AppError('VALIDATION_ERROR', 'restore: give rename or overwrite=true, not both', {
          arguments: ['rename', 'overwrite'],
        });
      if (args.version !== undefined && (args.rename !== undefined || args.overwrite))
        throw new AppError(
          'VALIDATION_ERROR',
          'restore: version restores a live artifact; rename and overwrite are for the trash',
          {
            arguments: ['version'],
          },
        );
      try {
        const a = out(
          await restoreByRef(rc, {
            ref: args.ref,
            rename: args.rename,
            overwrite: args.overwrite,
            version: args.version,
            ifMatch: args.if_match,
          }),
        );
        const what = args.version !== undefined ? `version ${args.version} as ` : '';
        return { structured: a, text: `Restored ${what}${artifactLine(a)}` };
      } catch (err) {
        throw err instanceof AppError && err.code === 'PATH_OCCUPIED' ? occupied(err, args.ref) : err;
      }
    },
  );
}

/** PATH_OCCUPIED with the ways out as restore arguments (REST's restore_options are /v0 URLs). */
function occupied(err: AppError, ref: string): AppError {
  const { restore_options: _urls, suggested_rename: rename, ...extra } = err.extra ?? {};
  return new AppError('PATH_OCCUPIED', `${err.message}; call restore again with rename or overwrite=true`, {
    ...extra,
    restore_options: { rename: { ref, rename }, overwrite: { ref, overwrite: true } },
  });
}
