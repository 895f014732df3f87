import { AppError } from './errors.js';

/** If-Match carries the expected current version number, bare or quoted (`3`, `"3"`, `W/"3"`). */
export function parseIfMatch(header: string): number {
  const m = /^\s*(?:W\/)?"?(\d{1,9})"?\s*$/.exec(header);
  if (!m) throw new AppError('INVALID_IF_MATCH', 'If-Match must carry the expected current version number');
  return Number(m[1]);
}
