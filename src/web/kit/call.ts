import type { Request, Response } from 'express';
import type { AppContext } from '../../platform/context.js';
import type { RequestContext } from '../../platform/request-context.js';
import type { Html, PageOptions } from '../html.js';
import type { Session } from '../session.js';

/**
 * What a web declaration (src/web/kit/declare.ts) hands its handler and what the handler gives back. Who may call:
 * - `anyone`: no sign-in needed (sign-in forms, the landing page, share-link passwords); `csrf()` gives the
 *   visitor's token, creating an anonymous session on first use;
 * - `signed_in`: a live signed-in session (else sign in, then back here);
 * - `owner`: signed in with a drive; `rc` acts as that drive (src/identity/web-principal.ts);
 * - `visitor`: whoever is looking (a bearer credential, the session's drive, or nobody): `rc` carries it and the one
 *   authorization rule decides what it sees (a grant's or a public file's holder).
 */
export type Who = 'anyone' | 'signed_in' | 'owner' | 'visitor';

export interface BaseCall {
  ctx: AppContext;
  req: Request;
  res: Response;
  /** A form field (the url-encoded or multipart body), '' when absent or not text. */
  field(name: string): string;
  /** A query parameter, '' when absent or repeated. */
  query(name: string): string;
  /** The one-time notice a redirect left for this page (read once). */
  flash(): Record<string, string> | undefined;
  /** The top bar for this visitor. */
  nav(): Html;
}

export interface AnyoneCall extends BaseCall {
  session: Session | undefined;
  /** The CSRF token for the page's forms (an anonymous session is started when there is none). */
  csrf(): string;
}
export interface SignedInCall extends BaseCall {
  session: Session & { uid: string; email: string };
}
export interface OwnerCall extends BaseCall {
  session: Session & { uid: string; drv: string };
  rc: RequestContext;
}
export interface VisitorCall extends BaseCall {
  session: Session | undefined;
  rc: RequestContext;
}

export type CallOf<W extends Who> = W extends 'owner'
  ? OwnerCall
  : W extends 'signed_in'
    ? SignedInCall
    : W extends 'visitor'
      ? VisitorCall
      : AnyoneCall;

/** A page to send (layout `app`: wide, with the top bar; `plain`: the narrow sign-in layout). */
export interface PageAnswer {
  kind: 'page';
  title: string;
  body: Html;
  status: number;
  opts?: PageOptions & { layout?: 'app' | 'plain' };
}
/** POST → 303 → GET: where to go, with an optional one-time notice for that page. */
export interface RedirectAnswer {
  kind: 'redirect';
  to: string;
  flash?: Record<string, string>;
  status: 302 | 303;
}
/** The handler answered itself (bytes, JSON, the not-found page). */
export interface SentAnswer {
  kind: 'sent';
}
export type Answer = PageAnswer | RedirectAnswer | SentAnswer;

export const show = (title: string, body: Html, status = 200, opts?: PageAnswer['opts']): PageAnswer => ({
  kind: 'page',
  title,
  body,
  status,
  opts,
});
export const go = (to: string, flash?: Record<string, string>, status: 302 | 303 = 303): RedirectAnswer => ({
  kind: 'redirect',
  to,
  flash,
  status,
});
export const SENT: SentAnswer = { kind: 'sent' };
