import type { RequestHandler, Response } from 'express';
import { authOf } from '../http/auth-context.js';
import type { AppContext } from '../../context.js';
import { chargeWrite, rateLimited, writeBudgetStatus, type HitResult } from '../../usage/rate-limits.js';

const MUTATING = new Set(['PUT', 'POST', 'PATCH', 'DELETE']);

/** Beginning a large upload is free; its commit (and every other mutation) is charged. */
export function isChargedWrite(method: string, path: string): boolean {
  if (!MUTATING.has(method)) return false;
  return !(method === 'POST' && /^\/v0\/uploads\/?$/.test(path));
}

function setHeaders(res: Response, r: HitResult) {
  res.setHeader('X-RateLimit-Limit', String(r.limit));
  res.setHeader('X-RateLimit-Remaining', String(r.remaining));
  res.setHeader('X-RateLimit-Reset', String(r.resetS));
}

/**
 * Mounted right after bearerAuth on /v0. A write charges the credential's hourly budget before
 * the handler runs (so a failed write still counts); a read is counted for the monthly usage
 * report. Every authenticated response carries the X-RateLimit-* headers.
 */
export function writeBudget(ctx: AppContext): RequestHandler {
  const limit = ctx.config.limits.writeBudgetPerHour;
  return async (req, res, next) => {
    try {
      const auth = authOf(req);
      const path = req.originalUrl.split('?')[0];
      if (isChargedWrite(req.method, path)) {
        const r = await chargeWrite(ctx, auth, limit);
        setHeaders(res, r);
        if (!r.allowed) {
          throw rateLimited(`write budget of ${limit} per hour is spent`, r.retryAfterS);
        }
      } else {
        ctx.usageMeter.count(auth.driveId);
        setHeaders(res, writeBudgetStatus(auth.state.writesThisHour, limit));
      }
      next();
    } catch (err) {
      next(err);
    }
  };
}
