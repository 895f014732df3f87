import { Context } from '@temporalio/activity';

/**
 * Every activity that can outlive its worker heartbeats while it runs, and its workflow sets a
 * heartbeat timeout of seconds: when a worker dies (or a completion is lost under load) the
 * server notices within that timeout and retries elsewhere, instead of waiting out a
 * start-to-close timeout of minutes. Activities that report progress themselves (indexEmbed
 * heartbeats its resume point) are left alone, so their details are not overwritten.
 */
export const HEARTBEAT_EVERY_MS = 2000;

export function heartbeating<T extends Record<string, (...args: never[]) => Promise<unknown>>>(
  activities: T,
  except: (keyof T)[] = [],
): T {
  const wrapped = { ...activities };
  for (const name of Object.keys(activities) as (keyof T)[]) {
    if (except.includes(name)) continue;
    const fn = activities[name];
    wrapped[name] = (async (...args: never[]) => {
      const context = Context.current();
      context.heartbeat();
      const timer = setInterval(() => context.heartbeat(), HEARTBEAT_EVERY_MS);
      try {
        return await fn(...args);
      } finally {
        clearInterval(timer);
      }
    }) as T[keyof T];
  }
  return wrapped;
}
