import { AppError } from './errors.js';

/** Opaque keyset cursors: base64url JSON of the last row's sort key. */
export function encodeCursor(value: Record<string, unknown>): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

export function decodeCursor<T>(cursor: string, isValid: (v: unknown) => v is T): T {
  let value: unknown;
  try {
    if (!/^[A-Za-z0-9_-]+$/.test(cursor)) throw new Error('not base64url');
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw badCursor();
  }
  if (!value || typeof value !== 'object' || !isValid(value)) throw badCursor();
  return value;
}

const badCursor = () => new AppError('BAD_CURSOR', 'cursor is malformed; start again without one');
