import type { RequestHandler, Response } from 'express';
import { authOf } from '../http/auth-context.js';
import type { AppContext } from '../../platform/context.js';
import {
  budgetStatusOf,
  chargeWrite,
  settleWriteCharge,
  writeBudgetSpent,
  writeLimitsOf,
  type HitResult,
} from '../../platform/rate-limits.js';

const MUTATING = new Set(['PUT', 'POST', 'PATCH', 'DELETE']);

const isUploadBegin = (method: string, path: string) => method === 'POST' && /^\/v0\/uploads\/?$/.test(path);

/** Beginning a large upload is free; its commit (and every other mutation) is charged. */
export function isChargedWrite(method: string, path: string): boolean {
  return MUTATING.has(method) && !isUploadBegin(method, path);
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
  const limits = writeLimitsOf(ctx);
  const spent = (r: HitResult) => writeBudgetSpent(r, limits);
  return async (req, res, next) => {
    try {
      const auth = authOf(req);
      const path = req.originalUrl.split('?')[0];
      // A read-only credential's write is refused by its route (route(): CREDENTIAL_READ_ONLY) and spends nothing.
      const writeOfReadOnly = auth.readOnly && MUTATING.has(req.method);
      if (isChargedWrite(req.method, path) && !writeOfReadOnly) {
        // Charged by the credential's lookup (API keys: authenticate's chargeWrite), else by its own statement.
        const r = auth.writeCharge
          ? await settleWriteCharge(ctx, auth.driveId, auth.writeCharge, limits)
          : await chargeWrite(ctx, auth, limits);
        setHeaders(res, r);
        if (!r.allowed) throw spent(r);
      } else {
        ctx.usageMeter.count(auth.driveId);
        const r = budgetStatusOf(ctx, auth.state);
        setHeaders(res, r);
        // Begin is free, but refused when the budget its commit needs is already spent (spec 4.7).
        if (isUploadBegin(req.method, path) && !r.allowed && !writeOfReadOnly) throw spent(r);
      }
      next();
    } catch (err) {
      next(err);
    }
  };
}
