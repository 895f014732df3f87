import type { Request, Response } from 'express';
import { pipeline } from 'node:stream/promises';
import type { OpenedContent } from '../../files/content.js';
import { contentDisposition } from '../../lib/content-disposition.js';

/**
 * Sends stored bytes as a download: never rendered (attachment, nosniff, a sandboxing CSP),
 * with a strong ETag (the content hash), If-None-Match (304) and single-range Range (206/416).
 */
export async function sendBytes(req: Request, res: Response, content: OpenedContent): Promise<void> {
  const { blob } = content;
  const etag = `"${blob.hash}"`;
  res.setHeader('ETag', etag);
  res.setHeader('Accept-Ranges', 'bytes');
  res.setHeader('Cache-Control', 'private, no-cache');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Content-Security-Policy', "default-src 'none'; sandbox");
  res.setHeader('Content-Disposition', contentDisposition('attachment', content.filename));

  const inm = req.get('if-none-match');
  if (inm && inm.split(',').some((t) => t.trim() === etag || t.trim() === `W/${etag}` || t.trim() === '*')) {
    res.status(304).end();
    return;
  }
  const range = parseRange(req.get('range'), blob.size);
  if (range === 'unsatisfiable') {
    res.setHeader('Content-Range', `bytes */${blob.size}`);
    res.status(416).end();
    return;
  }
  const ifRange = req.get('if-range');
  const useRange = range && (!ifRange || ifRange === etag) ? range : undefined;
  res.setHeader('Content-Type', blob.contentType);
  if (blob.size === 0) {
    res.setHeader('Content-Length', '0');
    res.status(200).end();
    return;
  }
  const body = await content.read(useRange);
  if (useRange) {
    res.status(206);
    res.setHeader('Content-Range', `bytes ${useRange.start}-${useRange.end}/${blob.size}`);
    res.setHeader('Content-Length', String(useRange.end - useRange.start + 1));
  } else {
    res.status(200);
    res.setHeader('Content-Length', String(blob.size));
  }
  if (Buffer.isBuffer(body)) res.end(body);
  else await pipeline(body, res);
}

/**
 * One `bytes=` range; several ranges or a malformed header fall back to the whole body (RFC 9110 allows ignoring
 * Range).
 */
export function parseRange(
  header: string | undefined,
  size: number,
): { start: number; end: number } | 'unsatisfiable' | undefined {
  if (!header) return undefined;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return undefined;
  let start: number;
  let end: number;
  if (m[1] === '') {
    const suffix = Number(m[2]);
    if (suffix === 0) return 'unsatisfiable';
    start = Math.max(0, size - suffix);
    end = size - 1;
  } else {
    start = Number(m[1]);
    end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
    if (m[2] !== '' && Number(m[2]) < start) return undefined;
  }
  if (start >= size || size === 0) return 'unsatisfiable';
  return { start, end };
}
