import type { RequestHandler } from 'express';
import { parseFence, withFence } from '../platform/fence-scope.js';

/**
 * Every request a door serves runs in a fence scope (issue 56): the fence of `X-Drive-Fence`, or none. Writes to
 * leased paths check it (src/files/leases/lease-guard.ts); MCP's `fence` argument replaces it for one tool call.
 */
export const fenceHeader: RequestHandler = (req, _res, next) => {
  let fence;
  try {
    fence = parseFence(req.get('x-drive-fence'));
  } catch (err) {
    return next(err);
  }
  withFence(fence, next);
};
