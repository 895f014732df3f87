import { ResourceNotFoundError, type ReadResourceResult, type Resource } from '@modelcontextprotocol/server';
import { listArtifacts } from '../files/artifact-listing.js';
import { readArtifactRange } from '../files/read-range.js';
import { downloadUrlOut } from '../shapes/artifacts.js';
import { AppError } from '../lib/errors.js';
import type { RequestContext } from '../platform/request-context.js';
import type { Handlers } from './protocol.js';
import type { ToolEnv } from './tool-kit.js';

/**
 * The drive's files as MCP resources: `drive:///<path>` for each live artifact, listed a page at a time, read as text
 * (within the tool result cap), as a base64 blob (images and binaries up to MCP_EMBED_MAX_BYTES) or, larger, as a
 * signed link that needs no credential. Subscriptions to these URIs are in subscriptions.ts.
 */
export const DRIVE_URI = 'drive:///';
const PAGE = 100;

export const uriOf = (path: string) => `${DRIVE_URI}${path.split('/').map(encodeURIComponent).join('/')}`;

/** The drive path a `drive:///` URI names ('' for the drive's root); undefined for any other URI. */
export function pathOfUri(uri: string): string | undefined {
  if (!uri.startsWith(DRIVE_URI)) return undefined;
  try {
    // A leading slash too many (drive:////a) is the same file, as models often write it.
    return decodeURIComponent(uri.slice(DRIVE_URI.length)).replace(/^\/+/, '');
  } catch {
    return undefined;
  }
}

/** As the wire has it (the SDK's ResourceTemplate type holds a parsed UriTemplate). */
const TEMPLATE = {
  uriTemplate: 'drive:///{+path}',
  name: 'drive-file',
  title: 'A file of this drive',
  description: 'Any file by its path (e.g. drive:///reports/q3.md); a folder URI ending in / is for subscriptions.',
};

export function registerResources(env: ToolEnv): Handlers {
  const rc = (): RequestContext => ({
    app: env.app,
    driveId: env.auth.driveId,
    principal: env.auth,
    actor: null,
    requestId: env.requestId,
  });
  return {
    'resources/templates/list': () => ({ resourceTemplates: [TEMPLATE] }),
    'resources/list': async ({ cursor }) => {
      env.app.usageMeter.count(env.auth.driveId);
      const page = await listArtifacts(rc(), { prefix: '', labels: [], cursor, limit: PAGE });
      const resources: Resource[] = page.items.map((a) => ({
        uri: uriOf(a.path),
        name: a.path,
        mimeType: a.content_type,
        size: Number(a.size_bytes),
      }));
      return { resources, ...(page.next_cursor ? { nextCursor: page.next_cursor } : {}) };
    },
    'resources/read': async ({ uri }) => {
      const path = pathOfUri(uri);
      if (!path) throw new ResourceNotFoundError(uri, `Resource not found: ${uri} (files are drive:///<path>)`);
      env.app.usageMeter.count(env.auth.driveId);
      try {
        return await readResource(rc(), env, uri, path);
      } catch (err) {
        if (err instanceof AppError && err.status === 404)
          throw new ResourceNotFoundError(uri, `Resource not found: ${uri}: ${err.message}`);
        throw err;
      }
    },
  };
}

async function readResource(rc: RequestContext, env: ToolEnv, uri: string, path: string): Promise<ReadResourceResult> {
  const { mcp } = env.app.config;
  const read = await readArtifactRange(rc, {
    ref: path,
    range: {},
    imageMaxBytes: mcp.embedMaxBytes,
    embedMaxBytes: mcp.embedMaxBytes,
    capChars: mcp.resultMaxChars,
    sizeOf: ({ range }) => range.content.length,
  });
  const mimeType = read.blob.contentType;
  if (read.kind === 'image' || read.kind === 'embedded')
    return { contents: [{ uri, mimeType, blob: read.bytes.toString('base64') }] };
  if (read.kind === 'download') {
    const download = downloadUrlOut(read.download);
    const text = `${path} (${read.blob.size} bytes) is over the ${mcp.embedMaxBytes}-byte inline cap: GET ${download.url} (no Authorization header) before ${download.expires_at}`;
    return { contents: [{ uri, mimeType: 'text/plain', text, _meta: { download } }] };
  }
  const { content, totalChars, stop } = read.range;
  const truncated = stop < totalChars;
  return {
    contents: [
      {
        uri,
        mimeType,
        text: content,
        ...(truncated
          ? {
              _meta: {
                truncated: true,
                total_chars: totalChars,
                next_offset: stop,
                hint: 'read the rest with the read tool',
              },
            }
          : {}),
      },
    ],
  };
}
