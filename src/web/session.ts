import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import type { AppContext } from '../platform/context.js';
import { safeEqual } from '../lib/secrets.js';
import { createWebSession, liveWebSession, revokeAllWebSessions, revokeWebSession } from '../identity/web-sessions.js';
import type { Config } from '../lib/config.js';
import { personDrives, type PersonDrive } from '../drives/person-drives.js';

/**
 * The browser session (spec 5.11): a signed cookie `ad_session` holding the signed-in human (the person, who may
 * own several drives: issue 55), the drive they opened last (`drv`, a default only: every page names its drive in
 * its URL, and the kit checks the person owns it on each request), a CSRF token and, once signed in, a session id
 * whose row (src/identity/web-sessions.ts) must still be live: signing out ends the session server-side, so
 * the old cookie no longer opens anything. HttpOnly, SameSite=Lax, Secure on https. A visitor
 * who has not signed in still gets a session with a CSRF token (no row), for the sign-in forms.
 * `loadSession` reads it once per request; the pages read it with `readSession`.
 */
export const SESSION_COOKIE = 'ad_session';

export interface Session {
  csrf: string;
  /** Expiry, epoch seconds. */
  exp: number;
  uid?: string;
  email?: string;
  /** The drive the person opened last: the default for a page or form that names none. */
  drv?: string | null;
  /** The server-side session of a signed-in human (absent for anonymous visitors). */
  sid?: string;
  /** Whether the account's email is verified (read with the session row, not from the cookie). */
  verified?: boolean;
  /** The person's drives, for the nav's switcher (read with the session row on each request, never in the cookie). */
  drives?: PersonDrive[];
}

export class WebAuthNotConfigured extends Error {}

function secretOf(config: Config): string {
  if (!config.secrets.sessionSecret) throw new WebAuthNotConfigured('SESSION_SECRET is not set');
  return config.secrets.sessionSecret;
}

const sign = (config: Config, payload: string) =>
  createHmac('sha256', secretOf(config)).update(payload).digest('base64url');

export function readCookie(req: Request, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** The cookie's session when its signature and expiry hold (nothing server-side checked yet). */
function cookieSession(config: Config, req: Request): Session | undefined {
  const raw = readCookie(req, SESSION_COOKIE);
  if (!raw) return undefined;
  const dot = raw.lastIndexOf('.');
  if (dot <= 0) return undefined;
  const payload = raw.slice(0, dot);
  if (!safeEqual(raw.slice(dot + 1), sign(config, payload))) return undefined;
  try {
    const session = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Session;
    if (typeof session.csrf !== 'string' || typeof session.exp !== 'number' || session.exp * 1000 <= Date.now())
      return undefined;
    return session;
  } catch {
    return undefined;
  }
}

type Loaded = { session: Session | undefined } | { error: unknown };
const loaded = new WeakMap<Request, Loaded>();

/**
 * Reads the session once per request, ahead of every page: a cookie naming a signed-in human counts
 * only while its server-side session is live (else the visitor is anonymous, with the cookie's CSRF
 * token kept); the email comes from the account row. Requests without the cookie cost no query.
 */
export function loadSession(ctx: AppContext): RequestHandler {
  return (req, _res, next) => {
    let cookie: Session | undefined;
    try {
      cookie = cookieSession(ctx.config, req);
    } catch (error) {
      loaded.set(req, { error });
      return next();
    }
    if (!cookie?.uid) {
      loaded.set(req, { session: cookie && { csrf: cookie.csrf, exp: cookie.exp } });
      return next();
    }
    const signedIn = cookie.sid ? liveWebSession(ctx, cookie.sid, cookie.uid) : Promise.resolve(undefined);
    Promise.all([signedIn, personDrives(ctx, cookie.uid)]).then(([live, drives]) => {
      loaded.set(req, {
        session: live
          ? { ...cookie, email: live.email, verified: live.verified, drives }
          : { csrf: cookie.csrf, exp: cookie.exp },
      });
      next();
    }, next);
  };
}

export function readSession(req: Request): Session | undefined {
  const state = loaded.get(req);
  if (!state) throw new Error('readSession before loadSession: mount loadSession(ctx) ahead of the pages');
  if ('error' in state) throw state.error;
  return state.session;
}

export function writeSession(
  config: Config,
  req: Request,
  res: Response,
  fields: Omit<Session, 'csrf' | 'exp' | 'verified' | 'drives'>,
): Session {
  const session: Session = {
    ...fields,
    csrf: randomBytes(24).toString('base64url'),
    exp: Math.floor(Date.now() / 1000) + config.durations.sessionS,
  };
  setSessionCookie(config, req, res, session);
  loaded.set(req, { session });
  return session;
}

/**
 * The person opened another of their drives: it becomes the default of pages and forms that name none. The same
 * session, CSRF token and expiry (forms open in other tabs stay valid); nothing changes when it already is.
 */
export function rememberDrive(config: Config, req: Request, res: Response, driveId: string): void {
  const current = readSession(req);
  if (!current?.uid || current.drv === driveId) return;
  const session: Session = { ...current, drv: driveId };
  delete session.verified; // read with the session row on each request, never from the cookie
  delete session.drives;
  setSessionCookie(config, req, res, session);
  loaded.set(req, { session: { ...current, drv: driveId } });
}

function setSessionCookie(config: Config, req: Request, res: Response, session: Session): void {
  const payload = Buffer.from(JSON.stringify(session)).toString('base64url');
  const secure = req.secure || config.http.webUrl.startsWith('https:');
  res.cookie(SESSION_COOKIE, `${payload}.${sign(config, payload)}`, {
    httpOnly: true,
    sameSite: 'lax',
    secure,
    path: '/',
    maxAge: Math.max(0, session.exp * 1000 - Date.now()),
    encode: (v) => v,
  });
}

/**
 * Signing in: a new server-side session (the one this browser had, if any, ends), and a fresh cookie and CSRF token.
 */
export async function startSignedInSession(
  ctx: AppContext,
  req: Request,
  res: Response,
  account: { uid: string; email: string; drv: string | null },
) {
  await endCurrentSession(ctx, req);
  const sid = await createWebSession(ctx, account.uid);
  return writeSession(ctx.config, req, res, { ...account, sid });
}

async function endCurrentSession(ctx: AppContext, req: Request) {
  const current = cookieSession(ctx.config, req);
  if (current?.sid) await revokeWebSession(ctx, current.sid);
}

/**
 * Signing out: the server-side session ends (the old cookie opens nothing any more); the browser gets an anonymous one.
 */
export async function signOutSession(ctx: AppContext, req: Request, res: Response): Promise<void> {
  await endCurrentSession(ctx, req);
  writeSession(ctx.config, req, res, {});
}

/** "Sign out everywhere": every session of the account ends, this one included. */
export async function signOutEverywhere(ctx: AppContext, req: Request, res: Response, userId: string): Promise<number> {
  const ended = await revokeAllWebSessions(ctx, userId);
  writeSession(ctx.config, req, res, {});
  return ended;
}

/**
 * The known-device cookie (src/identity/sign-in-guard.ts): set when a password sign-in succeeds, sent back only to the
 * sign-in form, so a browser that signed in before is neither slowed nor refused by anyone else's guesses.
 */
export const DEVICE_COOKIE = 'ad_device';
const DEVICE_MAX_AGE_MS = 400 * 24 * 3600_000; // the longest a browser keeps a cookie

export function writeDeviceCookie(config: Config, req: Request, res: Response, token: string): void {
  res.cookie(DEVICE_COOKIE, token, {
    httpOnly: true,
    sameSite: 'lax',
    secure: req.secure || config.http.webUrl.startsWith('https:'),
    path: '/auth/login',
    maxAge: DEVICE_MAX_AGE_MS,
    encode: (v) => v,
  });
}

/** The current session, or a fresh anonymous one (so every form can carry a CSRF token). */
export function ensureSession(config: Config, req: Request, res: Response): Session {
  return readSession(req) ?? writeSession(config, req, res, {});
}

export function csrfValid(session: Session | undefined, submitted: unknown): boolean {
  return !!session && typeof submitted === 'string' && safeEqual(submitted, session.csrf);
}

/**
 * A one-time message for the page a form post redirects to (POST → 303 → GET), such as a secret
 * shown once: encrypted and authenticated (AES-256-GCM under a key derived from SESSION_SECRET, so the
 * secret it may carry, a new API key or share link, is not readable from the cookie: issue 37), HttpOnly,
 * scoped to that page's path, read once and cleared, so reloading the page neither repeats the action nor
 * shows the secret again.
 */
const FLASH_COOKIE = 'ad_flash';

const flashKey = (config: Config) =>
  createHash('sha256')
    .update(`flash-key:${secretOf(config)}`)
    .digest();

function sealFlash(config: Config, plain: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', flashKey(config), iv);
  const sealed = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return [iv, sealed, cipher.getAuthTag()].map((b) => b.toString('base64url')).join('.');
}

function openFlash(config: Config, raw: string): string | undefined {
  const [iv, sealed, tag] = raw.split('.').map((p) => Buffer.from(p, 'base64url'));
  if (!iv || !sealed || !tag || iv.length !== 12 || tag.length !== 16) return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', flashKey(config), iv);
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(sealed), decipher.final()]).toString('utf8');
  } catch {
    return undefined;
  }
}

export function writeFlash(config: Config, res: Response, path: string, value: Record<string, string>): void {
  const payload = sealFlash(config, JSON.stringify({ ...value, exp: Math.floor(Date.now() / 1000) + 120 }));
  res.cookie(FLASH_COOKIE, payload, {
    httpOnly: true,
    sameSite: 'strict',
    secure: config.http.webUrl.startsWith('https:'),
    path,
    maxAge: 120_000,
    encode: (v) => v,
  });
}

export function takeFlash(
  config: Config,
  req: Request,
  res: Response,
  path: string,
): Record<string, string> | undefined {
  const raw = readCookie(req, FLASH_COOKIE);
  if (!raw) return undefined;
  res.clearCookie(FLASH_COOKIE, { path });
  const plain = openFlash(config, raw);
  if (!plain) return undefined;
  try {
    const v = JSON.parse(plain) as Record<string, string> & { exp: number };
    return v.exp * 1000 > Date.now() ? v : undefined;
  } catch {
    return undefined;
  }
}
