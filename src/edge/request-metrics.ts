import type { Request, RequestHandler } from 'express';
import { httpDuration, httpRequests } from '../platform/metrics.js';

/**
 * Counts every answered request and its latency by route template (`/v0/artifacts/:art_id`, never the path a
 * caller sent: no drive id or file name becomes a label), method and status. A request no route took (404, 405,
 * the input gate) is `unmatched`, so probing random paths cannot grow the label set. Counted at 'close', so a
 * request the client abandoned counts too.
 */
export function requestMetrics(): RequestHandler {
  return (req, res, next) => {
    const stop = httpDuration.startTimer();
    res.once('close', () => {
      const labels = { method: req.method, route: routeTemplate(req), status: String(res.statusCode) };
      httpRequests.inc(labels);
      // An event stream's "latency" is its lifetime: counted, not timed.
      if (!String(res.getHeader('content-type') ?? '').startsWith('text/event-stream')) stop(labels);
    });
    next();
  };
}

function routeTemplate(req: Request): string {
  const path = (req.route as { path?: unknown } | undefined)?.path;
  if (path === undefined) return 'unmatched';
  return `${req.baseUrl}${typeof path === 'string' ? path : Array.isArray(path) ? path.join('|') : 'pattern'}`;
}
