import type { Request } from 'express';
import { checkActorName } from '../../files/artifact-rules.js';
import type { UploadFields } from '../../files/upload-fields.js';
import { parseIfMatch } from '../../lib/if-match.js';

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
  };
}
