/** Retries of answers that say "not now": 429 (a budget or throttle) and 503 (a dependency outage). */

export interface RetryOptions {
  /** Further attempts after the first; default 4. */
  retries?: number;
  /** First backoff when the server gives no Retry-After; doubles per attempt, with jitter. Default 500 ms. */
  baseDelayMs?: number;
  /** A Retry-After longer than this is not waited for: the 429/503 is returned (an hourly budget). Default 60 s. */
  maxWaitMs?: number;
  /** Told before each wait (the CLI prints it on stderr). */
  onRetry?: (info: { status: number; attempt: number; delayMs: number; url: string }) => void;
}

const RETRIED_STATUSES = new Set([429, 503]);

/** Retry-After as milliseconds: delta-seconds or an HTTP date. */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** Exponential backoff with "equal jitter": half fixed, half random, so parallel clients spread out. */
export function backoffMs(attempt: number, baseDelayMs: number): number {
  const ceiling = Math.min(30_000, baseDelayMs * 2 ** attempt);
  return ceiling / 2 + Math.random() * (ceiling / 2);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Calls `send` (which must build a fresh request each time) until the answer is not 429/503 or retries run out. */
export async function withRetries(
  send: () => Promise<Response>,
  options: RetryOptions = {},
  url = '',
): Promise<Response> {
  const retries = options.retries ?? 4;
  const maxWaitMs = options.maxWaitMs ?? 60_000;
  for (let attempt = 0; ; attempt++) {
    const res = await send();
    if (!RETRIED_STATUSES.has(res.status) || attempt >= retries) return res;
    const asked = retryAfterMs(res.headers.get('retry-after'));
    if (asked !== undefined && asked > maxWaitMs) return res;
    const delayMs = asked ?? backoffMs(attempt, options.baseDelayMs ?? 500);
    await res.body?.cancel();
    options.onRetry?.({ status: res.status, attempt: attempt + 1, delayMs, url });
    await sleep(delayMs);
  }
}
