import { AppError } from '../lib/errors.js';
import type { AppContext } from '../platform/context.js';
import type { RequestContext } from '../platform/request-context.js';

/**
 * Open change-feed streams of this API process, counted per credential, per drive and per client address
 * (docs/decisions/feed.md, Bounded streams). A stream past any cap is refused with 429 before it starts. Counts
 * are per process: each process bounds what it holds, and a client spread over N processes gets N times the cap.
 */
export interface StreamSlot {
  release(): void;
}

/** How soon a refused client may try again: streams end within FEED_STREAM_MAX_S, most much sooner. */
const RETRY_AFTER_S = 10;

type Counts = Map<string, number>;
const perProcess = new WeakMap<AppContext, { credential: Counts; drive: Counts; address: Counts }>();

function countsOf(app: AppContext) {
  let c = perProcess.get(app);
  if (!c) perProcess.set(app, (c = { credential: new Map(), drive: new Map(), address: new Map() }));
  return c;
}

/** Takes a slot for a stream of `rc`'s credential from `address`, or throws 429 RATE_LIMITED naming the cap. */
export function takeStreamSlot(rc: RequestContext, address: string): StreamSlot {
  const { streamsPerCredential, streamsPerDrive, streamsPerAddress } = rc.app.config.feed;
  const counts = countsOf(rc.app);
  const keys: [Counts, string, number, string][] = [
    [counts.credential, rc.principal.credentialId, streamsPerCredential, 'this credential'],
    [counts.drive, rc.driveId, streamsPerDrive, 'this drive'],
    [counts.address, address, streamsPerAddress, 'this client address'],
  ];
  for (const [map, key, cap, who] of keys)
    if ((map.get(key) ?? 0) >= cap)
      throw new AppError(
        'RATE_LIMITED',
        `at most ${cap} open event streams for ${who}; close one, or retry after ${RETRY_AFTER_S} s`,
        { retry_after: RETRY_AFTER_S },
        {
          'Retry-After': String(RETRY_AFTER_S),
          'X-RateLimit-Limit': String(cap),
          'X-RateLimit-Remaining': '0',
          'X-RateLimit-Reset': String(Math.ceil(Date.now() / 1000) + RETRY_AFTER_S),
        },
      );
  for (const [map, key] of keys) map.set(key, (map.get(key) ?? 0) + 1);
  let released = false;
  return {
    release() {
      if (released) return;
      released = true;
      for (const [map, key] of keys) {
        const n = (map.get(key) ?? 1) - 1;
        if (n > 0) map.set(key, n);
        else map.delete(key);
      }
    },
  };
}
