import type { Request } from 'express';
import {
  checkActorName,
  checkChangeSummary,
  checkLabels,
  checkMetadata,
  checkPath,
  checkSource,
  checkVisibility,
} from '../../files/artifact-rules.js';
import type { UploadInput } from '../../files/artifacts.js';
import { AppError, type ErrorCode } from '../../lib/errors.js';

/** HTTP header syntax of the artifact endpoints (spec 4.1 upload rules); the value rules live in the domain. */

/** If-Match carries the expected current version number, bare or quoted (`3`, `"3"`, `W/"3"`). */
export function ifMatchOf(req: Request): number | undefined {
  const header = req.get('if-match');
  if (header === undefined) return undefined;
  const m = /^\s*(?:W\/)?"?(\d{1,9})"?\s*$/.exec(header);
  if (!m) throw new AppError('INVALID_IF_MATCH', 'If-Match must carry the expected current version number');
  return Number(m[1]);
}

export const actorOf = (req: Request) => checkActorName(req.get('x-drive-actor'));

function jsonHeader(value: string, code: ErrorCode, message: string): unknown {
  try {
    return JSON.parse(value);
  } catch {
    throw new AppError(code, message);
  }
}

/** The PUT's X-Drive-* headers: an omitted header is undefined (kept on overwrite, default on create). */
export function uploadInputOf(req: Request, path: string): UploadInput {
  const h = (name: string) => req.get(name);
  const labels = h('x-drive-labels');
  const metadata = h('x-drive-metadata');
  const source = h('x-drive-source');
  const visibility = h('x-drive-visibility');
  return {
    path: checkPath(path),
    contentType: h('content-type') || undefined,
    labels: labels !== undefined ? checkLabels(labels.split(',')) : undefined,
    metadata:
      metadata !== undefined
        ? checkMetadata(jsonHeader(metadata, 'INVALID_METADATA', 'X-Drive-Metadata must be a JSON object'))
        : undefined,
    source:
      source !== undefined
        ? checkSource(jsonHeader(source, 'INVALID_SOURCE', 'X-Drive-Source must be JSON {"refs": [...]}'))
        : undefined,
    visibility: visibility !== undefined ? checkVisibility(visibility) : undefined,
    changeSummary: checkChangeSummary(h('x-drive-change-summary')),
    ifMatch: ifMatchOf(req),
  };
}
