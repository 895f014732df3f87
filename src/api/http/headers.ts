import type { Request } from 'express';
import { checkActorName } from '../../files/artifact-rules.js';
import type { UploadFields } from '../../files/upload-fields.js';
import { parseIfMatch } from '../../lib/if-match.js';
import { AppError } from '../../lib/errors.js';

/** HTTP header syntax of the artifact endpoints (spec 4.1 upload rules); the value rules live in the domain. */

/** If-Match carries the expected current version number (syntax: parseIfMatch). */
export function ifMatchOf(req: Request): number | undefined {
  const header = req.get('if-match');
  return header === undefined ? undefined : parseIfMatch(header);
}

export const actorOf = (req: Request) => checkActorName(req.get('x-drive-actor'));

/** The PUT's X-Drive-* headers as sent: an omitted header is undefined (kept on overwrite, default on create). */
export function uploadFieldsOf(req: Request): UploadFields {
  const h = (name: string) => req.get(name);
  const labels = h('x-drive-labels');
  return {
    contentType: h('content-type') || undefined,
    labels: labels !== undefined ? labels.split(',') : undefined,
    metadataJson: h('x-drive-metadata'),
    sourceJson: h('x-drive-source'),
    visibility: h('x-drive-visibility'),
    changeSummary: h('x-drive-change-summary'),
    ifMatchHeader: h('if-match'),
    mergeHeader: h('x-drive-merge'),
    filename: filenameOf(h('x-drive-filename')),
  };
}

/**
 * X-Drive-Filename: the original file name, RFC 8187 (`UTF-8''Meeting%20notes%20%28draft%29.md`) or plain ASCII.
 * The domain checks the decoded name (checkFilename).
 */
export function filenameOf(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const ext = /^utf-8'[A-Za-z0-9-]*'(.*)$/i.exec(raw.trim());
  if (!ext) {
    if (!/^[\x20-\x7e]+$/.test(raw)) throw badFilename();
    // `r%C3%A9sum%C3%A9.pdf` would be kept literally: a percent escape belongs in the RFC 8187 form.
    if (/%[0-9A-Fa-f]{2}/.test(raw))
      throw new AppError(
        'INVALID_FILENAME',
        "X-Drive-Filename without UTF-8'' is plain ASCII taken literally; a percent-encoded name goes as UTF-8''<name>",
      );
    return raw.trim();
  }
  try {
    return decodeURIComponent(ext[1]);
  } catch {
    throw badFilename();
  }
}

const badFilename = () =>
  new AppError('INVALID_FILENAME', "X-Drive-Filename must be RFC 8187 (UTF-8''percent-encoded) or plain ASCII");
