import type { Readable } from 'node:stream';
import { AppError } from '../lib/errors.js';
import type { RequestContext } from '../platform/request-context.js';
import { fileTypeOf } from './artifact-rules.js';
import { artifactContent, readContent, type BlobRef, type ContentTarget } from './content.js';

/** Artifacts as text (MCP read by range, edit, grep): which ones are text, and their bytes decoded as UTF-8. */

const TEXT_FILE_TYPES = new Set(['markdown', 'html', 'json', 'data', 'code', 'text']);
const TEXT_CONTENT_TYPE =
  /^(text\/|application\/(json|xml|x-ndjson|javascript|x-yaml|yaml|toml|x-sh|sql)|[^;]*\+(json|xml))/i;

/** Text by file type or content type; an SVG (image/svg+xml) counts as text too. */
export function isTextual(fileType: string, contentType: string): boolean {
  return TEXT_FILE_TYPES.has(fileType) || TEXT_CONTENT_TYPE.test(contentType.trim());
}

export const notText = (path: string, contentType: string) =>
  new AppError('NOT_TEXT', `${path} is ${contentType}, not text; use read for its metadata and a download URL`, {
    content_type: contentType,
  });

/** The whole blob in memory (artifacts are at most the per-artifact limit, 50 MB by default). */
export async function blobBytes(rc: RequestContext, blob: BlobRef): Promise<Buffer> {
  const body = await readContent(rc.app, blob);
  if (Buffer.isBuffer(body)) return body;
  const chunks: Buffer[] = [];
  for await (const chunk of body as Readable) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export interface TextContent {
  blob: BlobRef;
  text: string;
}

/** The current text (or one version's) of a text artifact; NOT_TEXT otherwise. */
export async function readArtifactText(rc: RequestContext, target: ContentTarget): Promise<TextContent> {
  const blob = await artifactContent(rc, target);
  if (!isTextual(fileTypeOf(blob.path, blob.contentType), blob.contentType)) throw notText(blob.path, blob.contentType);
  return { blob, text: (await blobBytes(rc, blob)).toString('utf8') };
}
