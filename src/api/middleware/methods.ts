import type { RequestHandler } from 'express';
import { match, type MatchFunction } from 'path-to-regexp';
import type { z } from 'zod';
import { AppError } from '../../lib/errors.js';
import type { RouteRegistry, RouteSpec } from '../http/route.js';

/**
 * OPTIONS and 405 from the same route declarations as the OpenAPI document, so `Allow` lists
 * exactly the methods the document declares for the path. Paths no declared route matches pass
 * through untouched (web pages, /openapi.json, unknown routes).
 */
interface Template {
  path: string;
  matcher: MatchFunction<Record<string, string | string[]>>;
  routes: RouteSpec<z.ZodType, z.ZodType, z.ZodType>[];
  /** Lower is more specific: `*rest` params rank below `:name` params; more literal segments rank higher. */
  rank: number;
}

function templates(routes: RouteRegistry): Template[] {
  const byPath = new Map<string, Template>();
  for (const spec of routes.specs) {
    let t = byPath.get(spec.path);
    if (!t) {
      const wildcards = (spec.path.match(/\*\w+/g) ?? []).length;
      const params = (spec.path.match(/:\w+/g) ?? []).length;
      const literals = spec.path.split('/').filter((s) => s && !/^[:*]/.test(s)).length;
      t = {
        path: spec.path,
        matcher: match(spec.path, { decode: decodeURIComponent, trailing: true }),
        routes: [],
        rank: wildcards * 100 + params * 10 - literals,
      };
      byPath.set(spec.path, t);
    }
    t.routes.push(spec);
  }
  return [...byPath.values()];
}

/**
 * An id param (`art_id`, `fld_id`, ...) whose value is no such id: the router's guard sends it on to the `{path}` form.
 */
function idParamRejected(routes: Template['routes'], params: Record<string, string>): boolean {
  return routes.some((r) => {
    const shape = (r.params as unknown as { shape?: Record<string, z.ZodType> } | undefined)?.shape ?? {};
    return Object.entries(params).some(
      ([k, v]) => k.endsWith('_id') && shape[k] !== undefined && !shape[k].safeParse(v).success,
    );
  });
}

/**
 * `declared`: the methods of the most specific template(s) the path matches (what `Allow` lists);
 * `served`: every method some matching template answers. Undefined when no template matches.
 */
export function allowedMethods(
  all: Template[],
  path: string,
): { declared: Set<string>; served: Set<string> } | undefined {
  const hits: Template[] = [];
  for (const t of all) {
    let m;
    try {
      m = t.matcher(path);
    } catch {
      continue; // malformed percent-encoding: let the router answer
    }
    if (!m) continue;
    const params = Object.fromEntries(
      Object.entries(m.params).map(([k, v]) => [k, Array.isArray(v) ? v.join('/') : v]),
    );
    // Other invalid params (a version number 0) are the handler's 422, not another template's path.
    if (idParamRejected(t.routes, params)) continue;
    hits.push(t);
  }
  if (!hits.length) return undefined;
  const best = Math.min(...hits.map((t) => t.rank));
  const methods = (ts: Template[]) => new Set(ts.flatMap((t) => t.routes.map((r) => r.method.toUpperCase())));
  return { declared: methods(hits.filter((t) => t.rank === best)), served: methods(hits) };
}

function allowHeader(declared: Set<string>): string {
  const list = [...declared];
  if (declared.has('GET')) list.push('HEAD');
  return [...list, 'OPTIONS'].join(', ');
}

export function methodGuard(routes: RouteRegistry): RequestHandler {
  let all: Template[] | undefined;
  return (req, res, next) => {
    all ??= templates(routes); // routers register while the app is built, before the first request
    const found = allowedMethods(all, req.path);
    if (!found) return next();
    const method = req.method === 'HEAD' ? 'GET' : req.method;
    if (req.method === 'OPTIONS') {
      res.setHeader('Allow', allowHeader(found.declared));
      res.status(204).end();
      return;
    }
    if (found.served.has(method)) return next();
    next(
      new AppError(
        'METHOD_NOT_ALLOWED',
        `${req.method} is not allowed on ${req.path}`,
        {},
        { Allow: allowHeader(found.declared) },
      ),
    );
  };
}
