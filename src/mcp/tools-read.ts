import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { readArtifactRange, type RangeRead } from '../files/read-range.js';
import type { RequestContext } from '../platform/request-context.js';
import { downloadUrlOut } from '../shapes/artifacts.js';
import { downloadUrlOutSchema } from '../shapes/artifact-schemas.js';
import { defineTool, READ_ONLY, refArg, resultChars, type ToolAnswer, type ToolEnv } from './tool-kit.js';

/**
 * read and read_version, built for context windows: text by character or line range with the
 * total length reported (a 5 MB log is read page by page), images as image content up to a size
 * cap, anything else as metadata plus a download URL.
 */
const rangeArgs = {
  offset: z.number().int().min(0).optional().describe('first character to return (0-based); default 0'),
  length: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe('characters to return; default and max: what fits the result cap'),
  line_start: z.number().int().min(1).optional().describe('read by lines instead: first line (1-based)'),
  line_count: z.number().int().min(1).optional().describe('number of lines from line_start; default: as many as fit'),
};

const readOutput = {
  art_id: z.string(),
  path: z.string(),
  version_number: z.number().int(),
  content_type: z.string(),
  size_bytes: z.number().int(),
  kind: z.enum(['text', 'image', 'binary']),
  content: z.string().nullable().describe('text kind: the characters [start, end)'),
  total_chars: z.number().int().nullable(),
  total_lines: z.number().int().nullable(),
  start: z.number().int().nullable(),
  end: z.number().int().nullable(),
  next_offset: z.number().int().nullable().describe('offset to continue from; null at the end'),
  line_start: z.number().int().nullable(),
  line_end: z.number().int().nullable().describe('last line included (1-based)'),
  next_line: z.number().int().nullable(),
  download: downloadUrlOutSchema.nullable().describe('binary (and oversized image) kind: where to fetch the bytes'),
};

type RangeArgs = { offset?: number; length?: number; line_start?: number; line_count?: number };

/** Shapes a read: the structured answer and its text rendering. */
function answerOf(read: RangeRead, args: RangeArgs, imageMax: number): ToolAnswer {
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
      structured: { ...base, kind: 'image' },
      text: `Image ${label}.`,
      extra: [{ type: 'image', data: read.bytes.toString('base64'), mimeType: blob.contentType.toLowerCase() }],
    };
  }
  if (read.kind === 'download') {
    const download = downloadUrlOut(read.download);
    const why = read.image
      ? `an image over the ${imageMax}-byte inline cap or in a format not sent inline`
      : 'not text';
    return {
      structured: { ...base, kind: read.image ? 'image' : 'binary', download },
      text: `${label} is ${why}; download it from ${download.url}`,
    };
  }
  const { content, totalChars, totalLines, start, stop, lastLine } = read.range;
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
  };
  const where = byLines
    ? `lines ${args.line_start}-${lastLine ?? args.line_start} of ${totalLines}`
    : `chars ${start}-${stop} of ${totalChars}`;
  const hint = more
    ? byLines
      ? `; continue with line_start=${lastLine !== null ? lastLine + 1 : args.line_start}`
      : `; continue with offset=${stop}`
    : '; end of file';
  return { structured, text: `${label}, ${where}${hint}\n${content}` };
}

async function readTarget(
  rc: RequestContext,
  args: RangeArgs & { ref: string; version?: number },
  cap: number,
  imageMax: number,
): Promise<ToolAnswer> {
  const read = await readArtifactRange(rc, {
    ref: args.ref,
    version: args.version,
    range: { offset: args.offset, length: args.length, lineStart: args.line_start, lineCount: args.line_count },
    imageMaxBytes: imageMax,
    capChars: cap,
    sizeOf: (text) => resultChars(answerOf({ kind: 'text', ...text }, args, imageMax)),
  });
  return answerOf(read, args, imageMax);
}

export function registerReadTools(server: McpServer, env: ToolEnv): void {
  const { config } = env.app;
  const cap = config.mcp.resultMaxChars;
  const imageMax = config.mcp.imageMaxBytes;
  const description = (what: string) =>
    `${what} Text comes back as a character range (offset/length) or a line range (line_start/line_count) ` +
    `with total_chars and total_lines, at most ~${Math.floor(cap / 2)} characters per call: follow next_offset or next_line to page through a long file. ` +
    `PNG/JPEG/GIF/WebP images up to ${imageMax} bytes come back as image content; other binaries (PDF, archives, …) as metadata plus a download URL. ` +
    'Use lookup first if you only need size or type.';

  defineTool(
    server,
    env,
    'read',
    {
      title: 'Read a file',
      description: description(
        'Reads an artifact by path or art_ id (the current version, or `version` for an older one).',
      ),
      input: { ref: refArg.describe('art_… id or path'), version: z.number().int().min(1).optional(), ...rangeArgs },
      output: readOutput,
      annotations: READ_ONLY,
      budget: 'read',
    },
    (args, rc) => readTarget(rc, args, cap, imageMax),
  );

  defineTool(
    server,
    env,
    'read_version',
    {
      title: 'Read an older version',
      description: description('Reads one version of an artifact (see versions for the numbers).'),
      input: { ref: refArg.describe('art_… id or path'), version: z.number().int().min(1), ...rangeArgs },
      output: readOutput,
      annotations: READ_ONLY,
      budget: 'read',
    },
    (args, rc) => readTarget(rc, args, cap, imageMax),
  );
}
