import { Readable } from 'node:stream';
import { z } from 'zod';
import { setArtifactMetadata } from '../files/artifact-metadata.js';
import { uploadArtifact } from '../files/artifacts.js';
import { createFolder } from '../files/folders.js';
import { AppError } from '../lib/errors.js';
import { artifactOut } from '../shapes/artifacts.js';
import { folderOut } from '../shapes/folders.js';
import { mintUploadToken } from '../uploads/upload-tokens.js';
import { sourceSchema } from '../shapes/artifact-schemas.js';
import { publishAs } from './tool-schemas.js';
import { actorArg, defineTool, isArtId, refArg, writes, type ToolEnv, type ToolSet } from './tool-kit.js';
import { artifactLine } from './tools-browse.js';

/** Writing: upload, mkdir, set_metadata, upload_url (move, copy, delete, restore: tools-move.ts). */

export const pathArg = z.string().min(1).max(256).describe('e.g. "reports/q1.md"');
const labelsIn = z.array(z.string()).max(16).optional().describe('[a-z0-9_-]+; replaces, [] clears');
const metadataIn = z.record(z.string(), z.unknown()).optional().describe('replaces; {} clears');
export const ifMatchArg = z.number().int().min(1).optional().describe('expected version, else 412');
const changeSummaryArg = z.string().max(1000).optional();
/** Provenance; published as its outline (the validator checks the full form: refs of {type, id, metadata?}). */
export const sourceArg = publishAs(sourceSchema, {
  type: 'object',
  description: '{"refs":[{"type","id"}]}',
  additionalProperties: true,
}).optional();

function decode(content: string, encoding: 'text' | 'base64'): Buffer {
  if (encoding === 'text') return Buffer.from(content, 'utf8');
  const compact = content.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(compact) || compact.length % 4 === 1)
    throw new AppError('INVALID_ARGUMENT', 'content is not valid base64');
  return Buffer.from(compact, 'base64');
}

export function registerWriteTools(server: ToolSet, env: ToolEnv): void {
  const { config } = env.app;
  const out = (row: Parameters<typeof artifactOut>[1]) => artifactOut(config, row);

  defineTool(
    server,
    env,
    'upload',
    {
      title: 'Upload a file',
      description:
        'Creates or overwrites (new version) the file at path. content: text, or base64 (encoding=base64). ' +
        'Omitted labels/metadata kept. Big/binary: upload_url. Partial: edit. merge: 3-way from if_match.',
      input: {
        path: pathArg.describe('[A-Za-z0-9_./-] only'),
        filename: z.string().max(255).optional().describe('original name, kept'),
        content: z.string(),
        encoding: z.enum(['text', 'base64']).default('text'),
        content_type: z.string().min(1).max(255).optional(),
        labels: labelsIn,
        metadata: metadataIn,
        source: sourceArg,
        visibility: z.enum(['private', 'public']).optional(),
        change_summary: changeSummaryArg,
        if_match: ifMatchArg,
        merge: z.boolean().optional(),
        actor: actorArg,
      },
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
          merge: args.merge,
          filename: args.filename,
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
    'mkdir',
    {
      title: 'Create a folder',
      description: 'Creates a folder (or returns it). Paths imply folders: use it for a fld_ id or a description.',
      input: { path: pathArg, description: z.string().max(10_000).optional(), actor: actorArg },
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
      description: "Replaces an artifact's labels and/or metadata (no new version); omitted ones are kept.",
      input: {
        ref: refArg,
        labels: labelsIn,
        metadata: metadataIn,
        if_match: ifMatchArg,
        actor: actorArg,
      },
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
        'Single-use URL to PUT raw bytes to, no Authorization, Content-Type: content_type. For binaries and big ' +
        `files; expires in ${config.durations.uploadTokenS} s.`,
      input: {
        path: pathArg,
        content_type: z.string().min(1).max(255).default('application/octet-stream').describe('the PUT must send it'),
        max_bytes: z.number().int().min(1).max(config.limits.maxUploadBytes).optional(),
        labels: labelsIn,
        metadata: metadataIn,
        source: sourceArg,
        change_summary: changeSummaryArg,
        if_match: ifMatchArg,
        actor: actorArg,
      },
      annotations: writes(false, false),
      budget: 'free',
      unfenced: true,
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
