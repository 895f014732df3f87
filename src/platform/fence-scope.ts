import { AsyncLocalStorage } from 'node:async_hooks';
import { AppError } from '../lib/errors.js';

/**
 * The fence a request presents for leased paths (issue 56, docs/decisions/leases.md): `X-Drive-Fence` on any door,
 * or MCP's `fence` argument. Every request a door serves runs inside a scope (null when it presents none); the write
 * transaction's lease check reads it. The service's own work (compile outputs, the wiki) runs outside any scope and is
 * not held by agents' leases.
 */
export interface FenceScope {
  fence: number | null;
}

const scope = new AsyncLocalStorage<FenceScope>();

export const withFence = <T>(fence: number | null, fn: () => T): T => scope.run({ fence }, fn);
export const currentFence = (): FenceScope | undefined => scope.getStore();

/** The header's value: a positive integer, or absent. */
export function parseFence(value: string | undefined): number | null {
  if (value === undefined || value.trim() === '') return null;
  const n = Number(value.trim());
  if (!/^\d{1,15}$/.test(value.trim()) || !Number.isSafeInteger(n) || n < 1)
    throw new AppError('INVALID_FENCE', 'X-Drive-Fence must be a positive integer (the fence of a lease)');
  return n;
}
