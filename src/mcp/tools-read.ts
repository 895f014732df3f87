import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { fileTypeOf } from '../files/artifact-rules.js';
import { getArtifact, getArtifactByPath } from '../files/artifacts.js';
import { artifactContent, downloadUrl, type ContentTarget } from '../files/content.js';
import { blobBytes, isTextual } from '../files/text.js';
import { AppError } from '../lib/errors.js';
import type { RequestContext } from '../platform/request-context.js';
import { downloadUrlOut } from '../shapes/artifacts.js';
import { downloadUrlOutSchema } from '../api/schemas/artifacts.js';
import { defineTool, isArtId, READ_ONLY, refArg, resultChars, type ToolAnswer, type ToolEnv } from './tool-kit.js';

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

/** Character offsets where each line starts. */
function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  if (starts.length > 1 && starts[starts.length - 1] === text.length) starts.pop();
  return starts;
}

/** The line (1-based) holding character `pos`. */
function lineAt(starts: number[], pos: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid] <= pos) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
}

async function readTarget(
  rc: RequestContext,
  ref: string,
  version: number | undefined,
  args: RangeArgs,
  cap: number,
  imageMax: number,
): Promise<ToolAnswer> {
  const a = isArtId(ref) ? await getArtifact(rc, ref) : await getArtifactByPath(rc, ref);
  const target: ContentTarget = { artId: a.id, versionNumber: version };
  const blob = await artifactContent(rc, target);
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
  const fileType = fileTypeOf(blob.path, blob.contentType);
  const label = `${blob.path} v${blob.versionNumber} (${blob.contentType}, ${blob.size} bytes)`;
  if (!isTextual(fileType, blob.contentType)) {
    if (fileType === 'image' && blob.size <= imageMax && /^image\/(png|jpeg|gif|webp)$/i.test(blob.contentType)) {
      const data = (await blobBytes(rc, blob)).toString('base64');
      return {
        structured: { ...base, kind: 'image' },
        text: `Image ${label}.`,
        extra: [{ type: 'image', data, mimeType: blob.contentType.toLowerCase() }],
      };
    }
    const download = downloadUrlOut(await downloadUrl(rc, target));
    const why =
      fileType === 'image'
        ? `an image over the ${imageMax}-byte inline cap or in a format not sent inline`
        : 'not text';
    return {
      structured: { ...base, kind: fileType === 'image' ? 'image' : 'binary', download },
      text: `${label} is ${why}; download it from ${download.url}`,
    };
  }
  if (args.line_start !== undefined && (args.offset !== undefined || args.length !== undefined)) {
    throw new AppError('INVALID_ARGUMENT', 'give either offset/length or line_start/line_count, not both');
  }
  const text = (await blobBytes(rc, blob)).toString('utf8');
  const starts = lineStarts(text);
  const total = text.length;
  let start: number;
  let end: number;
  if (args.line_start !== undefined) {
    if (args.line_start > starts.length && total > 0)
      throw new AppError('INVALID_ARGUMENT', `line_start ${args.line_start} is past the last line (${starts.length})`);
    start = starts[args.line_start - 1] ?? total;
    const stopLine = args.line_count !== undefined ? args.line_start - 1 + args.line_count : starts.length;
    end = stopLine < starts.length ? starts[stopLine] : total;
  } else {
    start = Math.min(args.offset ?? 0, total);
    end = Math.min(total, start + (args.length ?? total));
  }
  const render = (stop: number): ToolAnswer => {
    const content = text.slice(start, stop);
    const more = stop < total;
    const byLines = args.line_start !== undefined;
    const lastLine = stop > start ? lineAt(starts, stop - 1) : null;
    const structured = {
      ...base,
      kind: 'text',
      content,
      total_chars: total,
      total_lines: starts.length,
      start,
      end: stop,
      next_offset: more ? stop : null,
      line_start: byLines ? args.line_start! : null,
      line_end: byLines ? lastLine : null,
      next_line: byLines && more && lastLine !== null ? lastLine + 1 : null,
    };
    const where = byLines
      ? `lines ${args.line_start}-${lastLine ?? args.line_start} of ${starts.length}`
      : `chars ${start}-${stop} of ${total}`;
    const hint = more
      ? byLines
        ? `; continue with line_start=${lastLine !== null ? lastLine + 1 : args.line_start}`
        : `; continue with offset=${stop}`
      : '; end of file';
    return { structured, text: `${label}, ${where}${hint}\n${content}` };
  };
  // Shrink until the answer fits the cap (JSON escaping can make it larger than the characters themselves); cut at a
  // line end when one is near.
  let stop = end;
  for (;;) {
    const answer = render(stop);
    const size = resultChars(answer);
    if (size <= cap || stop <= start) return answer;
    let next = start + Math.floor((stop - start) * (cap / size) * 0.95);
    const nl = text.lastIndexOf('\n', next - 1);
    if (nl >= start && next - nl < 2000) next = nl + 1;
    stop = Math.max(start, Math.min(next, stop - 1));
  }
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
    (args, rc) => readTarget(rc, args.ref, args.version, args, cap, imageMax),
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
    (args, rc) => readTarget(rc, args.ref, args.version, args, cap, imageMax),
  );
}
