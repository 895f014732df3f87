import { randomUUID } from 'node:crypto';
import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { Logger } from '../../lib/logger.js';
import { dependencyFailure } from '../../lib/dependency-errors.js';
import { AppError, errorEnvelope } from '../../lib/errors.js';
import { ValidationError } from '../http/route.js';

export const unknownRoute: RequestHandler = (req, _res, next) => {
  next(new AppError('NOT_FOUND', `no route for ${req.method} ${req.path}`));
};

/** body-parser / http-errors errors carry the status they mean and `expose: true` for client errors. */
interface BodyParserError extends Error {
  type?: string;
  status?: number;
  expose?: boolean;
}

/** Turns anything thrown into the spec's envelope; unexpected errors are logged with an id and never leak a stack. */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const apiError = toApiError(err);
    if (!apiError) {
      const errorId = randomUUID();
      logger.error({ err, error_id: errorId, req_id: req.id }, 'unhandled error');
      if (!res.headersSent) res.status(500).json(errorEnvelope('INTERNAL', `internal error (id ${errorId})`));
      else res.destroy();
      return;
    }
    if (res.headersSent) {
      res.destroy();
      return;
    }
    for (const [k, v] of Object.entries(apiError.headers)) res.setHeader(k, v);
    // 422 is the standard validation-error body; every other error is the envelope (spec 7).
    if (apiError instanceof ValidationError) res.status(422).json({ detail: apiError.issues });
    else res.status(apiError.status).json(errorEnvelope(apiError.code, apiError.message, apiError.extra));
  };
}

function toApiError(err: unknown): AppError | undefined {
  if (err instanceof AppError) return err;
  const e = err as BodyParserError;
  switch (e?.type) {
    case 'entity.parse.failed':
      return new AppError('MALFORMED_JSON', 'request body is not valid JSON');
    case 'entity.too.large':
      return new AppError('BODY_TOO_LARGE', 'request body is too large');
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new AppError('UNSUPPORTED_ENCODING', e.message);
    default:
      // Any other client error the parsers or the router raise (a body that is not the gzip it claims,
      // an aborted body, an undecodable parameter) keeps its 4xx meaning instead of becoming a 500.
      if (e?.expose && typeof e.status === 'number' && e.status >= 400 && e.status < 500)
        return new AppError('INVALID_REQUEST', e.message);
      return dependencyFailure(err);
  }
}
