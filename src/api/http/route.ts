import {
  Router as ExpressRouter,
  type NextFunction,
  type Request,
  type RequestHandler,
  type Response,
  type Router,
} from 'express';
import { z } from 'zod';
import { AppError, type ErrorCode } from '../../lib/errors.js';
import { refuseReadOnlyWrite } from '../../access/authorize.js';

/**
 * Routes are declared with their zod schemas once; the same declaration validates requests
 * and feeds the OpenAPI document (see ../openapi.ts), so a route cannot drift from its docs.
 */
export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

export interface ResponseSpec {
  description: string;
  schema?: z.ZodType;
  contentType?: string;
}

export interface RouteSpec<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType> {
  method: HttpMethod;
  /** Express 5 path: `:name` for a segment, `*name` for a slash-containing rest. */
  path: string;
  summary: string;
  tags?: string[];
  /** Bearer credential required (documented; enforced by the router's middleware). */
  auth?: boolean;
  /**
   * Whether the route writes, so a read-only credential is refused it (403 CREDENTIAL_READ_ONLY, before its handler).
   * Left out, the method says: PUT, POST, PATCH and DELETE write. Set only for a mutating method that merely reads.
   */
  writes?: boolean;
  params?: P;
  query?: Q;
  body?: B;
  /** Request body content type when not JSON (for raw uploads). */
  bodyContentType?: string;
  headers?: z.ZodObject;
  /** Status and code for an invalid body instead of 422 VALIDATION_ERROR (registration uses 400 INVALID_BODY). */
  invalidBody?: ErrorCode;
  /**
   * Domain error codes the handler can throw (OpenAPI; see ../openapi.ts). Absent on an authenticated route: the whole
   * catalogue.
   */
  errors?: readonly ErrorCode[];
  /** Its error answers are exactly the 4xx/5xx in `responses`, not the envelope (the RFC 6749 token endpoint). */
  ownErrors?: boolean;
  responses: Record<number, ResponseSpec>;
}

export interface ParsedRequest<P, Q, B> {
  params: P;
  query: Q;
  body: B;
  req: Request;
  res: Response;
}

export type AnyRouteSpec = RouteSpec<z.ZodType, z.ZodType, z.ZodType>;

/**
 * The routes one app declares: built by its composition root (createApp, or the client generator), handed to every
 * router factory, and read by the OpenAPI document and the OPTIONS/405 guard. Routers made by `router()` put what
 * `route()` declares on them here, so two apps in one process (the tests build many) never share a list.
 */
export class RouteRegistry {
  private static readonly owners = new WeakMap<Router, RouteRegistry>();
  private readonly declared: AnyRouteSpec[] = [];

  /** A router whose `route()` declarations this registry records. */
  router(): Router {
    const router = ExpressRouter();
    RouteRegistry.owners.set(router, this);
    return router;
  }

  /** Documents a route answered outside `route()` (its own body parsing and error shape). */
  document(spec: AnyRouteSpec): void {
    this.declared.push(spec);
  }

  get specs(): readonly AnyRouteSpec[] {
    return this.declared;
  }

  static of(router: Router): RouteRegistry {
    const registry = RouteRegistry.owners.get(router);
    if (!registry) throw new Error('route() needs a router made by RouteRegistry.router()');
    return registry;
  }
}

const MUTATING_METHODS: readonly HttpMethod[] = ['put', 'post', 'patch', 'delete'];

/** Whether a declared route writes: its own `writes`, else its method (see RouteSpec.writes). */
export const routeWrites = (spec: Pick<RouteSpec<z.ZodType, z.ZodType, z.ZodType>, 'method' | 'writes'>) =>
  spec.writes ?? MUTATING_METHODS.includes(spec.method);

/** One failing field in the standard validation-error body (FastAPI's HTTPValidationError item). */
export interface ValidationIssue {
  loc: string[];
  msg: string;
  type: string;
}

/** 422: rendered as `{"detail": [{loc, msg, type}, ...]}` (spec 4, 7.2), not the error envelope. */
export class ValidationError extends AppError {
  readonly issues: ValidationIssue[];
  constructor(issues: z.core.$ZodIssue[], location: string) {
    super(
      'VALIDATION_ERROR',
      `invalid ${location}: ${issues.map((i) => `${[location, ...i.path].join('.')}: ${i.message}`).join('; ')}`,
    );
    this.issues = issues.map((i) => ({ loc: [location, ...i.path.map(String)], msg: i.message, type: i.code }));
  }
}

export function parseWith<T extends z.ZodType>(schema: T, value: unknown, location: string): z.output<T> {
  const result = schema.safeParse(value);
  if (!result.success) throw new ValidationError(result.error.issues, location);
  return result.data;
}

function parseBody<B extends z.ZodType>(spec: { body?: B; invalidBody?: ErrorCode }, value: unknown): z.output<B> {
  try {
    return parseWith(spec.body!, value, 'body');
  } catch (err) {
    if (!spec.invalidBody || !(err instanceof ValidationError)) throw err;
    throw new AppError(spec.invalidBody, err.message, { issues: err.issues });
  }
}

/** Express 5 gives `*rest` params as arrays of segments; join them back into a path. */
function normaliseParams(params: Record<string, unknown>) {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(params)) out[k] = Array.isArray(v) ? v.join('/') : v;
  return out;
}

export function route<
  P extends z.ZodType = z.ZodUnknown,
  Q extends z.ZodType = z.ZodUnknown,
  B extends z.ZodType = z.ZodUnknown,
>(
  router: Router,
  spec: RouteSpec<P, Q, B>,
  handler: (input: ParsedRequest<z.output<P>, z.output<Q>, z.output<B>>) => unknown,
  ...middleware: RequestHandler[]
) {
  RouteRegistry.of(router).document(spec as unknown as AnyRouteSpec);
  const successStatus = Number(Object.keys(spec.responses).find((s) => Number(s) < 300) ?? 200);
  // Ahead of the route's own middleware, and again ahead of its handler when that middleware authenticates (the drive
  // routes bring their own bearer check): a read-only credential's write goes no further.
  const writes = routeWrites(spec);
  const readOnlyGate: RequestHandler = (req, _res, next) => {
    try {
      if (req.auth) refuseReadOnlyWrite(req.auth);
      next();
    } catch (err) {
      next(err);
    }
  };
  const gates = writes ? [readOnlyGate] : [];
  router[spec.method](spec.path, ...gates, ...middleware, async (req: Request, res: Response, next: NextFunction) => {
    try {
      if (writes && req.auth) refuseReadOnlyWrite(req.auth);
      const params = spec.params
        ? parseWith(spec.params, normaliseParams(req.params), 'path')
        : normaliseParams(req.params);
      const query = spec.query ? parseWith(spec.query, req.query, 'query') : req.query;
      const body = spec.body ? parseBody(spec, req.body ?? {}) : req.body;
      const result = await handler({ params, query, body, req, res } as ParsedRequest<
        z.output<P>,
        z.output<Q>,
        z.output<B>
      >);
      if (res.headersSent || result === undefined) return;
      res.status(successStatus).json(result);
    } catch (err) {
      next(err);
    }
  });
}
