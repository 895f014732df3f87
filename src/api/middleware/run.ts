import type { RequestHandler } from 'express';
import { runFor, withRun } from '../../platform/run-scope.js';
import { authOf } from '../http/auth-context.js';
import type { AppContext } from '../../platform/context.js';

/**
 * Files every change of the request under one run: X-Drive-Run-Id, else the credential's default run
 * (docs/decisions/runs.md). Reads are scoped too (cheap), so a write route never misses it.
 */
export function runScope(ctx: AppContext): RequestHandler {
  return (req, _res, next) => {
    if (!ctx.config.runs.record) return next();
    let run;
    try {
      run = runFor(authOf(req), { header: req.get('x-drive-run-id') });
    } catch (err) {
      return next(err);
    }
    withRun(run, next);
  };
}
