import { AppError } from '../lib/errors.js';
import { z } from 'zod';
import { numberLines } from '../files/memory/memory-tree.js';
import type { RangeRead } from '../files/read-range.js';
import { readAt } from '../history/as-of.js';
import type { RequestContext } from '../platform/request-context.js';
import { downloadUrlOut } from '../shapes/artifacts.js';
import {
  asOfArg,
  defineTool,
  READ_ONLY,
  refArg,
  resultChars,
  type ToolAnswer,
  type ToolEnv,
  type ToolSet,
} from './tool-kit.js';

/**
 * read and read_version, built for context windows: text by character or line range with the
 * total length reported (a 5 MB log is read page by page), images as image content up to a size
 * cap, other binaries as an embedded resource up to MCP_EMBED_MAX_BYTES, anything larger as a
 * signed short-lived URL that needs no credential (an MCP OAuth token opens no /v0 URL).
 */
const rangeArgs = {
  offset: z.number().int().min(0).optional().describe('first character (0-based)'),
  length: z.number().int().min(1).optional(),
  line_start: z.number().int().min(1).optional().describe('first line, 1-based'),
  line_count: z.number().int().min(1).optional(),
};

type RangeArgs = {
  unit?: number;
  offset?: number;
  length?: number;
  line_start?: number;
  line_count?: number;
  numbered?: boolean;
};

/** Shapes a read: the structured answer and its text rendering. */
function answerOf(read: RangeRead, args: RangeArgs, imageMax: number, webUrl: string): ToolAnswer {
  const blob = read.blob;
  const base = {
    art_id: blob.artId,
    path: blob.path,
    version_number: blob.versionNumber,
    content_type: blob.contentType,
    size_bytes: blob.size,
    content: null,
    total_chars: null,
    total_lines: null,
    start: null,
    end: null,
    next_offset: null,
    line_start: null,
    line_end: null,
    next_line: null,
    download: null,
  };
  const label = `${blob.path} v${blob.versionNumber} (${blob.contentType}, ${blob.size} bytes)`;
  if (read.kind === 'image') {
    return {
      structured: { ...base, kind: 'image', note: 'the image follows as image content' },
      text: `Image ${label}.`,
      extra: [{ type: 'image', data: read.bytes.toString('base64'), mimeType: blob.contentType.toLowerCase() }],
    };
  }
  if (read.kind === 'embedded') {
    const uri = `${webUrl}/a/${blob.artId}?v=${blob.versionNumber}`;
    return {
      structured: { ...base, kind: 'binary', note: `the bytes follow as an embedded resource (${uri}, base64 blob)` },
      text: `${label}: the bytes follow as an embedded resource.`,
      extra: [{ type: 'resource', resource: { uri, mimeType: blob.contentType, blob: read.bytes.toString('base64') } }],
    };
  }
  if (read.kind === 'download') {
    const download = downloadUrlOut(read.download);
    const why = read.image ? `an image over the ${imageMax}-byte inline cap or not PNG/JPEG/GIF/WebP` : 'binary';
    const note = `${why}: GET download.url (no Authorization header) before ${download.expires_at}`;
    return {
      structured: { ...base, kind: read.image ? 'image' : 'binary', download, note },
      text: `${label} is ${note}: ${download.url}`,
    };
  }
  const { content, totalChars, totalLines, start, stop, lastLine, unit } = read.range;
  const more = stop < totalChars;
  const byLines = args.line_start !== undefined;
  const structured = {
    ...base,
    kind: 'text',
    content,
    total_chars: totalChars,
    total_lines: totalLines,
    start,
    end: stop,
    next_offset: more ? stop : null,
    line_start: byLines ? args.line_start! : null,
    line_end: byLines ? lastLine : null,
    next_line: byLines && more && lastLine !== null ? lastLine + 1 : null,
    ...(unit ? { unit: unit.index, units: unit.count, anchor: unit.anchor } : {}),
  };
  const where = byLines
    ? `lines ${args.line_start}-${lastLine ?? args.line_start} of ${totalLines}`
    : `chars ${start}-${stop} of ${totalChars}`;
  const hint = more
    ? byLines
      ? `; continue with line_start=${lastLine !== null ? lastLine + 1 : args.line_start}`
      : `; continue with offset=${stop}`
    : '; end of file';
  const inUnit = unit ? `unit ${unit.index} of ${unit.count} ${JSON.stringify(unit.anchor)}, ` : '';
  const shown = args.numbered ? numberLines(content, args.line_start ?? 1) : content;
  return { structured, text: `${label}, ${inUnit}${where}${hint}\n${shown}` };
}

async function readTarget(
  rc: RequestContext,
  args: RangeArgs & { ref: string; version?: number; as_of?: number },
  cap: number,
  imageMax: number,
): Promise<ToolAnswer> {
  const { webUrl } = rc.app.config.http;
  const read = await readAt(rc, {
    ref: args.ref,
    version: args.version,
    asOf: args.as_of,
    range: {
      unit: args.unit,
      offset: args.offset,
      length: args.length,
      lineStart: args.line_start,
      lineCount: args.line_count,
    },
    imageMaxBytes: imageMax,
    embedMaxBytes: rc.app.config.mcp.embedMaxBytes,
    capChars: cap,
    sizeOf: (text) => resultChars(answerOf({ kind: 'text', ...text }, args, imageMax, webUrl)),
  });
  return answerOf(read, args, imageMax, webUrl);
}

export function registerReadTools(server: ToolSet, env: ToolEnv): void {
  const { config } = env.app;
  const cap = config.mcp.resultMaxChars;
  const imageMax = config.mcp.imageMaxBytes;
  const description = (what: string) =>
    `${what} Text by offset/length or line_start/line_count, ~${Math.floor(cap / 2)} chars/call: follow ` +
    'next_offset/next_line. Binaries: image, embedded, URL.';

  defineTool(
    server,
    env,
    'read',
    {
      title: 'Read a file',
      description: description('Reads an artifact (or a version); a document as Markdown by unit (page, slide…).'),
      input: {
        ref: refArg,
        version: z.number().int().min(1).optional(),
        as_of: asOfArg,
        unit: z.number().int().min(1).optional(),
        ...rangeArgs,
        numbered: z.boolean().optional(),
      },
      annotations: READ_ONLY,
      budget: 'read',
    },
    (args, rc) => {
      if (args.numbered && args.offset)
        throw new AppError('INVALID_ARGUMENT', 'numbered lines start at a line: use line_start, not offset');
      return readTarget(rc, args, cap, imageMax);
    },
  );

  defineTool(
    server,
    env,
    'read_version',
    {
      title: 'Read an older version',
      description: description('Reads one version of an artifact (numbers from versions).'),
      input: { ref: refArg, version: z.number().int().min(1), ...rangeArgs },
      annotations: READ_ONLY,
      budget: 'read',
    },
    (args, rc) => readTarget(rc, args, cap, imageMax),
  );
}
