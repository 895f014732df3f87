import { createHmac, randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { AppContext } from '../platform/context.js';
import { reserveAttempts, type ThrottleKind } from '../platform/rate-limits.js';
import { safeEqual } from '../lib/secrets.js';

/**
 * What guards the password form (issue 54, finding 3: nobody who merely knows an address can lock its owner out;
 * docs/decisions/identity.md, "Sign-in nobody can lock"). Failures count against LOGIN_FAILURES_PER_IP_PER_HOUR on
 * three counters, reserved before the password is compared and given back when it matches:
 * - per client address, and per account and address: over either, 429 (a guesser's own address stops);
 * - per account over every address: never a refusal (that was the lock-out); past it, an attempt waits
 *   SLOWED_SIGN_IN_MS before its password is compared.
 * A browser that signed in to the account before carries a known-device token (a cookie): its attempts count only on
 * the account's counter for that device, so neither the address it shares nor anyone's guesses slow or stop it.
 */
export const SLOWED_SIGN_IN_MS = 2_000;
const DEVICE_PREFIX = 'addv_';

/** The account's throttle key: the address as typed, normalised (the counter exists for unknown addresses too). */
export const accountKey = (email: string) => email.trim().toLowerCase().slice(0, 320);

function deviceMac(app: AppContext, account: string, nonce: string): string | undefined {
  const secret = app.config.secrets.sessionSecret;
  if (!secret) return undefined;
  return createHmac('sha256', secret).update(`known-device:${account}:${nonce}`).digest('base64url');
}

/** A token saying "this browser signed in to this account"; the web door keeps it in a long-lived cookie. */
export function mintDeviceToken(app: AppContext, email: string): string | undefined {
  const nonce = randomBytes(12).toString('base64url');
  const mac = deviceMac(app, accountKey(email), nonce);
  return mac && `${DEVICE_PREFIX}${nonce}.${mac}`;
}

/** The device's id when `token` was minted for this account, else undefined. */
function knownDevice(app: AppContext, account: string, token: string | undefined): string | undefined {
  const m = token && /^addv_([\w-]{16})\.([\w-]{43})$/.exec(token);
  if (!m) return undefined;
  const mac = deviceMac(app, account, m[1]!);
  return mac && safeEqual(m[2]!, mac) ? m[1] : undefined;
}

/**
 * Reserves one failed sign-in of `email` from `ip` (and `device`, the cookie's token if any) before the password is
 * compared: 429 RATE_LIMITED over a hard counter, a wait over the account's. `giveBack` once the password matched.
 */
export async function reserveSignIn(
  app: AppContext,
  email: string,
  ip: string,
  device: string | undefined,
): Promise<{ giveBack(): Promise<void> }> {
  const account = accountKey(email);
  const limit = app.config.limits.loginFailuresPerIpPerHour;
  const em = app.orm.em.fork();
  const known = knownDevice(app, account, device);
  const checks: [ThrottleKind, string, number, 'soft'?][] = known
    ? [['login_failure_device', `${account} ${known}`, limit]]
    : [
        ['login_failure', ip, limit],
        ['login_failure_account_ip', `${account} ${ip}`, limit],
        ['login_failure_account', account, limit, 'soft'],
      ];
  const attempt = await reserveAttempts(em, checks, 'too many failed sign-ins from this address');
  if (attempt.softSpent) await sleep(SLOWED_SIGN_IN_MS);
  return attempt;
}
