import { AppError, type ErrorCode } from '../lib/errors.js';
import { parseIfMatch } from '../lib/if-match.js';
import {
  checkChangeSummary,
  checkLabels,
  checkMetadata,
  checkPath,
  checkSource,
  checkVisibility,
  type Source,
  type Visibility,
} from './artifact-rules.js';
import { checkFilename } from './file-names.js';

/**
 * An upload's fields as a door received them, checked by the upload operation itself (every door gets the same rules
 * in the same order). Each optional field is undefined when omitted: kept on overwrite, the default on create.
 */
export interface UploadFields {
  contentType?: string;
  /** Sent as text (MCP encoding "text"): with no content type, text/markdown for .md, else text/plain. */
  sentAsText?: boolean;
  labels?: string[];
  metadata?: unknown;
  /** X-Drive-Metadata as sent: JSON text, parsed here. */
  metadataJson?: string;
  source?: unknown;
  /** X-Drive-Source as sent: JSON text, parsed here. */
  sourceJson?: string;
  visibility?: string;
  changeSummary?: string | null;
  ifMatch?: number;
  /** If-Match as sent (`3`, `"3"`, `W/"3"`), parsed here after the value checks. */
  ifMatchHeader?: string;
  /** X-Drive-Merge as sent (only `three-way`), or the MCP/SDK boolean. */
  mergeHeader?: string;
  merge?: boolean;
  /** The original file name a person gave (X-Drive-Filename, decoded); kept beside the path. */
  filename?: string;
}

/** The checked fields. */
export interface CheckedUpload {
  contentType?: string;
  labels?: string[];
  metadata?: Record<string, unknown>;
  source?: Source;
  visibility?: Visibility;
  changeSummary: string | null;
  ifMatch?: number;
  merge?: boolean;
  filename?: string;
}

function parseJson(value: string, code: ErrorCode, message: string): unknown {
  try {
    return JSON.parse(value);
  } catch {
    throw new AppError(code, message);
  }
}

/** A text upload with no content type: markdown by extension, else plain text. */
const textContentType = (path: string) =>
  /\.(md|markdown)$/i.test(path) ? 'text/markdown; charset=utf-8' : 'text/plain; charset=utf-8';

/**
 * Checks in spec order: path (absent for an upload by id, whose path is the artifact's), labels, metadata, source,
 * visibility, change summary, If-Match.
 */
export function checkUploadFields(f: UploadFields, path?: string): CheckedUpload {
  if (path !== undefined) checkPath(path);
  const labels = f.labels !== undefined ? checkLabels(f.labels) : undefined;
  const metadataGiven =
    f.metadataJson !== undefined
      ? parseJson(f.metadataJson, 'INVALID_METADATA', 'X-Drive-Metadata must be a JSON object')
      : f.metadata;
  const metadata = metadataGiven !== undefined ? checkMetadata(metadataGiven) : undefined;
  const sourceGiven =
    f.sourceJson !== undefined
      ? parseJson(f.sourceJson, 'INVALID_SOURCE', 'X-Drive-Source must be JSON {"refs": [...]}')
      : f.source;
  const source = sourceGiven !== undefined ? checkSource(sourceGiven) : undefined;
  const visibility = f.visibility !== undefined ? checkVisibility(f.visibility) : undefined;
  const changeSummary = checkChangeSummary(f.changeSummary);
  const ifMatch = f.ifMatchHeader !== undefined ? parseIfMatch(f.ifMatchHeader) : f.ifMatch;
  const contentType = f.contentType ?? (f.sentAsText && path !== undefined ? textContentType(path) : undefined);
  const filename = f.filename !== undefined ? checkFilename(f.filename) : undefined;
  const merge = checkMerge(f, ifMatch);
  return { contentType, labels, metadata, source, visibility, changeSummary, ifMatch, merge, filename };
}

/** A merge needs its base: the version the writer started from (If-Match). */
function checkMerge(f: UploadFields, ifMatch: number | undefined): boolean | undefined {
  if (f.mergeHeader !== undefined && f.mergeHeader.trim().toLowerCase() !== 'three-way')
    throw new AppError('INVALID_ARGUMENT', 'X-Drive-Merge takes one value: three-way');
  const merge = f.mergeHeader !== undefined || f.merge === true;
  if (merge && ifMatch === undefined)
    throw new AppError(
      'INVALID_ARGUMENT',
      'a three-way merge needs If-Match (if_match): the version the write started from',
    );
  return merge || undefined;
}
