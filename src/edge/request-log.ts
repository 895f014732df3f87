import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import { redactUrl, type Logger } from '../lib/logger.js';

declare module 'express-serve-static-core' {
  interface Request {
    id: string;
  }
}

/** One structured log line per request, with a request id that is echoed back as X-Request-Id. */
export function requestLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const incoming = req.get('x-request-id');
    req.id = incoming && /^[\w.-]{1,128}$/.test(incoming) ? incoming : randomUUID();
    res.setHeader('X-Request-Id', req.id);
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const auth = (req as { auth?: { driveId?: string } }).auth;
      logger.info(
        {
          req_id: req.id,
          method: req.method,
          path: redactUrl(req.originalUrl.split('?')[0]),
          status: res.statusCode,
          ms: Number(process.hrtime.bigint() - started) / 1e6,
          drive: auth?.driveId,
          actor: req.get('x-drive-actor')?.slice(0, 64),
        },
        'request',
      );
    });
    next();
  };
}
