import type { RequestHandler } from 'express';
import { UNSTORABLE_JSON_MESSAGE, unstorableJson } from '../files/artifact-rules.js';
import { AppError } from '../lib/errors.js';

/**
 * One gate for every route, before any operation runs: a path segment that does not decode as
 * UTF-8 percent-encoding, or a NUL byte in the path, the query or a header value, is a client's
 * mistake (400 INVALID_REQUEST), never a 500 from the router or PostgreSQL ("invalid byte sequence
 * for encoding UTF8: 0x00"). Parsed bodies (JSON, forms) are checked by `rejectNulInBody`.
 */
const invalid = (message: string) => new AppError('INVALID_REQUEST', message);

function decodable(segment: string): boolean {
  try {
    return !decodeURIComponent(segment).includes('\0');
  } catch {
    return false;
  }
}

export const inputGate: RequestHandler = (req, _res, next) => {
  const [path, query = ''] = (req.originalUrl ?? req.url).split(/\?(.*)/s, 2);
  if (!path.split('/').every(decodable))
    return next(invalid('the request path is not valid percent-encoded UTF-8 or contains a NUL byte'));
  // The query parser decodes leniently (a stray % stays literal, so a bad cursor is still BAD_CURSOR); only NUL is
  // refused.
  if (/%00/i.test(query) || query.includes('\0')) return next(invalid('the query string contains a NUL byte'));
  for (const [name, value] of Object.entries(req.headers)) {
    const values = Array.isArray(value) ? value : [value ?? ''];
    if (values.some((v) => v.includes('\0'))) return next(invalid(`header ${name} contains a NUL byte`));
  }
  next();
};

/**
 * Walks a parsed body (JSON or form): a NUL in any string, key or value, or nesting past 64 levels, is refused before
 * it reaches PostgreSQL.
 */
export const rejectNulInBody: RequestHandler = (req, _res, next) => {
  const problem = req.body === undefined ? null : unstorableJson(req.body);
  if (problem) return next(invalid(`the request body ${UNSTORABLE_JSON_MESSAGE[problem]}`));
  next();
};
