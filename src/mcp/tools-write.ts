import { Readable } from 'node:stream';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { setArtifactMetadata } from '../files/artifact-metadata.js';
import { uploadArtifact } from '../files/artifacts.js';
import { createFolder } from '../files/folders.js';
import { copyByRef, deleteByRef, moveByRef } from '../files/ref-writes.js';
import { AppError } from '../lib/errors.js';
import { artifactDeleteOut, artifactOut } from '../shapes/artifacts.js';
import { folderDeleteOut, folderOut } from '../shapes/folders.js';
import { mintUploadToken } from '../uploads/upload-tokens.js';
import {
  artifactOutSchema,
  deleteOutSchema,
  folderDeleteOutSchema,
  folderOutSchema,
  sourceSchema,
} from '../shapes/artifact-schemas.js';
import { actorArg, defineTool, isArtId, refArg, writes, type ToolEnv } from './tool-kit.js';
import { artifactLine } from './tools-browse.js';

/** Changing the drive: upload, move, copy, delete, mkdir, set_metadata, upload_url. Each charges one write. */

const pathArg = z
  .string()
  .min(1)
  .max(256)
  .describe('drive path, e.g. "reports/q1.md": [A-Za-z0-9_./-], no leading/trailing slash, no ".."');
const labelsIn = z
  .array(z.string())
  .max(16)
  .optional()
  .describe('lowercase [a-z0-9_-]+, at most 16; given replaces, [] clears, omitted keeps');
const metadataIn = z.record(z.string(), z.unknown()).optional().describe('JSON object; given replaces, omitted keeps');
const ifMatchArg = z
  .number()
  .int()
  .min(1)
  .optional()
  .describe('expected current version_number; the write fails with PRECONDITION_FAILED (412) if it moved');
const changeSummaryArg = z.string().max(1000).optional().describe('why this version exists (kept in versions)');

function decode(content: string, encoding: 'text' | 'base64'): Buffer {
  if (encoding === 'text') return Buffer.from(content, 'utf8');
  const compact = content.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(compact) || compact.length % 4 === 1)
    throw new AppError('INVALID_ARGUMENT', 'content is not valid base64');
  return Buffer.from(compact, 'base64');
}

export function registerWriteTools(server: McpServer, env: ToolEnv): void {
  const { config } = env.app;
  const out = (row: Parameters<typeof artifactOut>[1]) => artifactOut(config, row);

  defineTool(
    server,
    env,
    'upload',
    {
      title: 'Upload a file',
      description:
        'Creates the artifact at path, or overwrites it as a new version (earlier versions stay readable). content is text (UTF-8) ' +
        'or base64 with encoding="base64" for binaries. Labels/metadata/source omitted keep their values on overwrite. ' +
        `Limit ${config.limits.maxUploadBytes} bytes; for large or binary files prefer upload_url (raw PUT, no base64). ` +
        'Paths under _wiki/ are reserved (WIKI_RESERVED). To change part of a text file use edit.',
      input: {
        path: pathArg,
        content: z.string().describe('file content: text, or base64 when encoding="base64"'),
        encoding: z.enum(['text', 'base64']).default('text'),
        content_type: z
          .string()
          .min(1)
          .max(255)
          .optional()
          .describe(
            'MIME type; default text/plain for text (text/markdown for .md), application/octet-stream for base64',
          ),
        labels: labelsIn,
        metadata: metadataIn,
        source: sourceSchema.optional().describe('provenance {"refs":[{"type","id"}]}; replaces when given'),
        visibility: z.enum(['private', 'public']).optional(),
        change_summary: changeSummaryArg,
        if_match: ifMatchArg,
        actor: actorArg,
      },
      output: artifactOutSchema.shape,
      annotations: writes(false, false),
      budget: 'write',
    },
    async (args, rc) => {
      const bytes = decode(args.content, args.encoding);
      const row = await uploadArtifact(
        rc,
        {
          path: args.path,
          contentType: args.content_type,
          sentAsText: args.encoding === 'text',
          labels: args.labels,
          metadata: args.metadata,
          source: args.source,
          visibility: args.visibility,
          changeSummary: args.change_summary,
          ifMatch: args.if_match,
        },
        { stream: Readable.from([bytes]), declaredBytes: bytes.length },
      );
      const a = out(row);
      return { structured: a, text: `Stored ${artifactLine(a)}` };
    },
  );

  defineTool(
    server,
    env,
    'move',
    {
      title: 'Move or rename',
      description:
        'Moves (renames) an artifact, by path or art_ id, to a new path; id, versions, labels and metadata are kept. ' +
        'Given a folder (fld_ id or folder path) it moves the folder with everything under it. A taken target fails with PATH_CONFLICT ' +
        '(FOLDER_PATH_CONFLICT for folders). if_match guards an artifact against concurrent changes.',
      input: {
        from: refArg.describe('art_… id, fld_… id, or current path'),
        to: pathArg,
        if_match: ifMatchArg,
        actor: actorArg,
      },
      output: {
        kind: z.enum(['artifact', 'folder']),
        artifact: artifactOutSchema.optional(),
        folder: folderOutSchema.optional(),
      },
      annotations: writes(false, false),
      budget: 'write',
    },
    async (args, rc) => {
      const moved = await moveByRef(rc, { ref: args.from, path: args.to, ifMatch: args.if_match });
      if (moved.kind === 'artifact') {
        const a = out(moved.artifact);
        return {
          structured: { kind: 'artifact', artifact: a },
          text: `Moved ${moved.from.path} → ${a.path} (${a.art_id})`,
        };
      }
      const f = folderOut(moved.folder);
      return { structured: { kind: 'folder', folder: f }, text: `Moved folder /${moved.from.path}/ → ${f.path}` };
    },
  );

  defineTool(
    server,
    env,
    'copy',
    {
      title: 'Copy a file',
      description:
        'Copies an artifact (by path or art_ id) to a new path: a new artifact at version 1 with the same bytes, labels and metadata, ' +
        'whose source points at the original. The copy counts toward storage (STORAGE_QUOTA_EXCEEDED when full); a taken target is PATH_CONFLICT.',
      input: {
        from: refArg.describe('art_… id or path'),
        to: pathArg,
        source: sourceSchema.optional(),
        actor: actorArg,
      },
      output: artifactOutSchema.shape,
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
        'Soft-deletes an artifact (path or art_ id) or a folder (fld_ id or folder path) into the trash; it can be restored until purge_at. ' +
        'A folder with live contents needs recursive=true (else FOLDER_RECURSIVE_REQUIRED). _wiki/ is reserved. if_match guards an artifact.',
      input: { ref: refArg, recursive: z.boolean().default(false), if_match: ifMatchArg, actor: actorArg },
      output: {
        kind: z.enum(['artifact', 'folder']),
        artifact: deleteOutSchema.optional(),
        folder: folderDeleteOutSchema.optional(),
      },
      annotations: writes(true, false),
      budget: 'write',
    },
    async (args, rc) => {
      const deleted = await deleteByRef(rc, { ref: args.ref, recursive: args.recursive, ifMatch: args.if_match });
      if (deleted.kind === 'artifact') {
        const d = artifactDeleteOut(config, deleted.artifact);
        return {
          structured: { kind: 'artifact', artifact: d },
          text: `Deleted ${d.path} (${d.art_id}); restorable until ${d.purge_at}`,
        };
      }
      const d = folderDeleteOut(config, deleted.folder);
      return {
        structured: { kind: 'folder', folder: d },
        text: `Deleted folder ${d.path} with ${d.n_artifacts_deleted} artifact(s) and ${d.n_subfolders_deleted} subfolder(s); restorable until ${d.purge_at}`,
      };
    },
  );

  defineTool(
    server,
    env,
    'mkdir',
    {
      title: 'Create a folder',
      description:
        'Creates a folder (idempotent: an existing folder is returned unchanged). Folders are optional: uploading to "a/b/c.md" needs none. ' +
        'Use them for a stable fld_ id and a description.',
      input: { path: pathArg, description: z.string().max(10_000).optional(), actor: actorArg },
      output: folderOutSchema.shape,
      annotations: writes(false, true),
      budget: 'write',
    },
    async (args, rc) => {
      const f = folderOut(await createFolder(rc, { path: args.path, description: args.description }));
      return { structured: f, text: `Folder ${f.path} (${f.fld_id})` };
    },
  );

  defineTool(
    server,
    env,
    'set_metadata',
    {
      title: 'Set labels and metadata',
      description:
        "Replaces an artifact's labels and/or metadata in place, without a new version (the bytes are unchanged). " +
        'An omitted field is kept; [] or {} clears it. if_match guards against concurrent changes.',
      input: {
        ref: refArg.describe('art_… id or path'),
        labels: labelsIn,
        metadata: metadataIn,
        if_match: ifMatchArg,
        actor: actorArg,
      },
      output: artifactOutSchema.shape,
      annotations: writes(true, true),
      budget: 'write',
    },
    async (args, rc) => {
      const target = isArtId(args.ref) ? { artId: args.ref } : { path: args.ref };
      const a = out(
        await setArtifactMetadata(rc, {
          ...target,
          labels: args.labels,
          metadata: args.metadata,
          ifMatch: args.if_match,
        }),
      );
      return {
        structured: a,
        text: `${artifactLine(a)}\nlabels: ${a.labels.join(',') || 'none'}; metadata: ${JSON.stringify(a.metadata)}`,
      };
    },
  );

  defineTool(
    server,
    env,
    'upload_url',
    {
      title: 'Mint an upload URL',
      description:
        'Mints a single-use URL for uploading raw bytes with HTTP PUT and no Authorization header (the URL is the credential), ' +
        'e.g. `curl -X PUT --data-binary @file -H "Content-Type: <content_type>" <upload_url>`. Best for binaries and large files: no base64. ' +
        'Path, content type, size cap, labels, metadata, source, actor, change summary and if_match are frozen in the token. ' +
        `It expires after ${config.durations.uploadTokenS} s; a second PUT fails with TOKEN_REPLAYED.`,
      input: {
        path: pathArg,
        content_type: z
          .string()
          .min(1)
          .max(255)
          .default('application/octet-stream')
          .describe('the PUT must send exactly this Content-Type'),
        max_bytes: z
          .number()
          .int()
          .min(1)
          .max(config.limits.maxUploadBytes)
          .optional()
          .describe(`size cap; default ${config.limits.maxUploadBytes}`),
        labels: labelsIn,
        metadata: metadataIn,
        source: sourceSchema.optional(),
        change_summary: changeSummaryArg,
        if_match: ifMatchArg,
        actor: actorArg,
      },
      output: {
        upload_url: z.string(),
        method: z.literal('PUT'),
        headers: z.record(z.string(), z.string()),
        path: z.string(),
        content_type: z.string(),
        max_bytes: z.number().int(),
        expires_at: z.string(),
      },
      annotations: writes(false, false),
      budget: 'free',
    },
    async (args, rc) => {
      const t = await mintUploadToken(rc, {
        path: args.path,
        contentType: args.content_type,
        maxBytes: args.max_bytes,
        labels: args.labels,
        metadata: args.metadata,
        source: args.source,
        changeSummary: args.change_summary,
        ifMatch: args.if_match,
      });
      const structured = {
        upload_url: t.uploadUrl,
        method: 'PUT' as const,
        headers: { 'content-type': t.contentType },
        path: t.path,
        content_type: t.contentType,
        max_bytes: t.maxBytes,
        expires_at: t.expiresAt.toISOString(),
      };
      return {
        structured,
        text: `PUT the bytes to ${t.uploadUrl} with Content-Type: ${t.contentType} (at most ${t.maxBytes} bytes, before ${structured.expires_at}, once).`,
      };
    },
  );
}
