import type { Request, RequestHandler, Response, Router } from 'express';
import type { AppContext } from '../../platform/context.js';
import { AppError } from '../../lib/errors.js';
import { chargeWriteOrRefuse } from '../../platform/rate-limits.js';
import { personPrincipal, webRequestContext } from '../../identity/web-principal.js';
import { loginUrl, safeBack } from '../format.js';
import { html } from '../html.js';
import { navFor } from '../nav.js';
import { csrfValid, ensureSession, readSession, rememberDrive, takeFlash } from '../session.js';
import { visitorContext } from '../viewer/access.js';
import { notFoundPage, renderAnswer, refusalPage } from './answer.js';
import { show, type Answer, type BaseCall, type CallOf, type Who } from './call.js';
import { multipartCall, type MultipartLimits, type UploadCall } from './multipart.js';

/**
 * The web door's one way to declare a handler, as `route()` is REST's and `defineTool` MCP's: `page()` for a GET,
 * `form()` for a form post. The declaration says who may call (src/web/kit/call.ts); the kit then owns the sign-in
 * redirect, the CSRF check of every form, the write budget of a form that writes (charged once, before the handler,
 * as /v0 does), the HTML answer to a domain refusal (a 4xx AppError: a page saying why, with its code and a way back;
 * Retry-After kept) and post/redirect/get (`go(to, flash)`). The handler makes its one domain call and returns what
 * to show (`show(title, body)`) or where to go.
 */
export interface Declaration {
  method: 'get' | 'post';
  path: string | string[];
  handler(ctx: AppContext): RequestHandler;
}

export interface PageSpec<W extends Who> {
  path: string | string[];
  who: W;
  /** A domain refusal answers the not-found page (the viewer: what one may not see does not exist). */
  refusedAs?: 'page' | 'not_found';
  /** The refusal page's title (default "That did not work"). */
  refusalTitle?: string;
  /** Only requests this says yes to (a query flag, a drive id); the others go on to the next declaration. */
  when?(call: BaseCall): boolean;
  /** What `when` selects, for the door-call table (e.g. `?history=1`). */
  variant?: string;
}

export interface FormSpec<W extends Who> extends PageSpec<W> {
  /** The form writes to the signed-in drive: one write of its budget is charged before the handler runs. */
  writes?: boolean;
  /** Where the refusal page's "Back" and a signed-out visitor's return lead when the form sends no `back` field. */
  back?: string;
  /** A form that shows itself again when it expired (sign-in): its answer instead of the "Form expired" page. */
  expired?(call: CallOf<W>): Answer;
}

const textOf = (source: unknown, name: string): string => {
  const v = (source as Record<string, unknown> | undefined)?.[name];
  return typeof v === 'string' ? v : '';
};

function baseCall(ctx: AppContext, req: Request, res: Response, fields?: Record<string, string>): BaseCall {
  return {
    ctx,
    req,
    res,
    field: (name) => textOf(fields ?? req.body, name),
    query: (name) => textOf(req.query, name),
    flash: () => takeFlash(ctx.config, req, res, req.path),
    nav: () => navFor(ctx.config, req),
  };
}

/** Who the caller is, per the declaration; undefined when the kit already answered (sign in first, no drive). */
async function callerOf<W extends Who>(base: BaseCall, who: W, back: string): Promise<CallOf<W> | undefined> {
  const { ctx, req, res } = base;
  if (who === 'visitor') {
    const rc = await visitorContext(ctx, req);
    // The person opened one of their drives: it becomes their default (the nav's owner links, forms naming none).
    if (rc.principal.kind === 'web_session' && rc.driveId === req.params.driveId && req.method === 'GET')
      rememberDrive(ctx.config, req, res, rc.driveId);
    return { ...base, session: sessionOrNone(req), rc } as CallOf<W>;
  }
  const session = readSession(req);
  if (who === 'anyone')
    return { ...base, session, csrf: () => ensureSession(ctx.config, req, res).csrf } as unknown as CallOf<W>;
  if (!session?.uid || !session.email) {
    res.redirect(303, loginUrl(back));
    return undefined;
  }
  if (who === 'signed_in') return { ...base, session } as CallOf<W>;
  const named = driveNamed(base);
  const person = await personPrincipal(ctx, session.uid, named ?? session.drv);
  if (named && !person?.owns) return void notFoundPage(ctx, req, res);
  if (!person) {
    renderAnswer(
      base,
      show('No drive', html`<p>You own no drive yet. Approve a claim from your agent to get one.</p>`),
      'app',
    );
    return undefined;
  }
  const drv = person.principal.driveId;
  if (named && req.method === 'GET') rememberDrive(ctx.config, req, res, drv);
  const rc = webRequestContext(ctx, person.principal, String(req.id ?? ''), 'web');
  return { ...base, session: { ...session, uid: session.uid, drv }, rc } as CallOf<W>;
}

/**
 * The drive an owner's page or form names (issue 55: a person may own several): `?drive=`, the form's `drive` field,
 * or the drive of the viewer page the form came from (its `back`); undefined when it names none (the session's last
 * opened drive then).
 */
function driveNamed(base: BaseCall): string | undefined {
  const named = base.query('drive') || base.field('drive') || /^\/(drv_[\w-]+)\//.exec(base.field('back'))?.[1];
  return named || undefined;
}

function sessionOrNone(req: Request) {
  try {
    return readSession(req);
  } catch {
    return undefined; // sign-in not configured: nobody is signed in
  }
}

const layoutOf = (who: Who) => (who === 'owner' || who === 'visitor' ? 'app' : 'plain');

/** Runs the handler; a domain refusal (4xx) becomes the refusal page (or the not-found page), anything else a 500. */
async function answer<W extends Who>(
  call: CallOf<W>,
  spec: PageSpec<W>,
  back: string | undefined,
  run: () => Promise<Answer>,
  settle?: () => Promise<void>,
): Promise<void> {
  let a: Answer;
  try {
    a = await run();
  } catch (err) {
    if (!(err instanceof AppError) || err.status >= 500) throw err;
    a = refusalPage(call, err, spec.refusedAs ?? 'page', spec.refusalTitle, back);
  }
  await settle?.();
  renderAnswer(call, a, layoutOf(spec.who));
}

export function page<W extends Who>(spec: PageSpec<W>, handler: (call: CallOf<W>) => Promise<Answer>): Declaration {
  return {
    method: 'get',
    path: spec.path,
    handler: (ctx) => async (req, res, next) => {
      const base = baseCall(ctx, req, res);
      if (spec.when && !spec.when(base)) return next();
      const call = await callerOf(base, spec.who, req.originalUrl);
      if (call) await answer(call, spec, undefined, () => handler(call));
    },
  };
}

/** The form's CSRF check: its refusal page (or the form's own answer to an expired form), else undefined. */
function expiredAnswer<W extends Who>(call: CallOf<W>, spec: FormSpec<W>, back: string): Answer | undefined {
  if (csrfValid(call.session, call.field('csrf'))) return undefined;
  return (
    spec.expired?.(call) ??
    show(
      'Form expired',
      html`<p class="error">Your form expired or did not come from this site. Go back, reload and try again.</p>
        <p><a href="${back}">Back</a></p>`,
      403,
    )
  );
}

const chargeOf = <W extends Who>(call: CallOf<W>) => {
  const rc = 'rc' in call ? call.rc : undefined;
  if (!rc) throw new Error('a form that writes must be declared for the drive owner');
  return chargeWriteOrRefuse(call.ctx, rc.principal);
};

export function form<W extends Who>(spec: FormSpec<W>, handler: (call: CallOf<W>) => Promise<Answer>): Declaration {
  return {
    method: 'post',
    path: spec.path,
    handler: (ctx) => async (req, res) => {
      const base = baseCall(ctx, req, res);
      const back = safeBack(base.field('back'), spec.back ?? '/dashboard');
      const call = await callerOf(base, spec.who, back);
      if (!call) return;
      const expired = expiredAnswer(call, spec, back);
      if (expired) return renderAnswer(call, expired, layoutOf(spec.who));
      await answer(call, spec, back, async () => {
        if (spec.writes) await chargeOf(call);
        return handler(call);
      });
    },
  };
}

/**
 * A multipart form of the owner (the file upload): the CSRF field and the other fields come before the files, so the
 * kit checks them when the first file arrives and charges one write per file before handing it over.
 */
export function upload(
  spec: FormSpec<'owner'> & { limits: (ctx: AppContext) => MultipartLimits },
  handler: (call: UploadCall) => Promise<Answer>,
): Declaration {
  return {
    method: 'post',
    path: spec.path,
    handler: (ctx) => async (req, res) => {
      const call = await callerOf(baseCall(ctx, req, res), 'owner', spec.back ?? '/dashboard');
      if (!call) return void req.resume();
      const back = (up: UploadCall) => safeBack(up.field('back'), spec.back ?? '/dashboard');
      await multipartCall(call, spec.limits(ctx), {
        refusal: (up) => expiredAnswer(up, spec, back(up)),
        render: (a) => renderAnswer(call, a, 'app'),
        charge: () => chargeOf(call),
        run: (up, settle) => answer(up, spec, back(up), () => handler(up), settle),
      });
    },
  };
}

/** Mounts declarations on a router, in order. */
export function mount(ctx: AppContext, router: Router, declarations: Declaration[]): Router {
  for (const d of declarations) router[d.method](d.path, d.handler(ctx));
  return router;
}
