import { z } from 'zod';
import { catalogueStatuses, codesWithStatus, ERROR_CATALOGUE, type ErrorCode } from '../lib/errors.js';
import { routeWrites, type RouteRegistry, type RouteSpec } from './http/route.js';

/** Builds the OpenAPI 3.1 document from the routes an app declared (`route()`, `RouteRegistry.document`). */
export function buildOpenApiDocument(routes: RouteRegistry, serverUrl: string) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const spec of routes.specs) {
    paths[openApiPath(spec.path)] ??= {};
    paths[openApiPath(spec.path)][spec.method] = operation(spec);
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Agent Artifact Drive', version: '0.0.1' },
    servers: [{ url: serverUrl }],
    paths,
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      schemas: {
        ErrorEnvelope: jsonSchema(errorEnvelopeSchema),
        ValidationError: jsonSchema(validationErrorSchema),
        HTTPValidationError: {
          type: 'object',
          properties: { detail: { type: 'array', items: { $ref: '#/components/schemas/ValidationError' } } },
          required: ['detail'],
        },
      },
    },
  };
}

/** Express `:name` / `*name` to OpenAPI `{name}`. */
export const openApiPath = (expressPath: string) => expressPath.replace(/:(\w+)/g, '{$1}').replace(/\*(\w+)/g, '{$1}');

const errorEnvelopeSchema = z.object({
  detail: z.object({
    error: z.looseObject({
      code: z.string(),
      message: z.string(),
      suggested_path: z
        .string()
        .optional()
        .describe(
          'INVALID_PATH: the path the name rule (GET /v0/paths/suggest) maps the refused one to; send the original name as X-Drive-Filename to keep it',
        ),
    }),
  }),
});
const validationErrorSchema = z.object({
  loc: z.array(z.union([z.string(), z.number().int()])),
  msg: z.string(),
  type: z.string(),
});

function jsonSchema(schema: z.ZodType) {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
  return rest;
}

/**
 * The input gate refuses U+0000 in any request string (400 INVALID_REQUEST; PostgreSQL text cannot
 * hold it), so every request string and object key says so, unless a pattern or enum already bounds it.
 */
const NO_NUL = String.raw`^[^\u0000]*$`;
function declareNoNul(node: unknown): void {
  if (!node || typeof node !== 'object') return;
  if (Array.isArray(node)) return node.forEach(declareNoNul);
  const n = node as Record<string, unknown>;
  const types = Array.isArray(n.type) ? n.type : [n.type];
  if (
    types.includes('string') &&
    n.pattern === undefined &&
    n.enum === undefined &&
    n.const === undefined &&
    n.format === undefined
  )
    n.pattern = NO_NUL;
  if (types.includes('object') && n.additionalProperties !== false && n.propertyNames === undefined)
    n.propertyNames = { pattern: NO_NUL };
  for (const key of ['properties', 'items', 'prefixItems', 'anyOf', 'oneOf', 'allOf', 'additionalProperties']) {
    const child = n[key];
    if (key === 'properties' && child && typeof child === 'object') Object.values(child).forEach(declareNoNul);
    else declareNoNul(child);
  }
}

function requestSchema(schema: z.ZodType) {
  const js = jsonSchema(schema);
  declareNoNul(js);
  return js;
}

function parameters(schema: z.ZodType | undefined, where: 'path' | 'query' | 'header') {
  if (!schema) return [];
  const js = requestSchema(schema) as { properties?: Record<string, unknown>; required?: string[] };
  return Object.entries(js.properties ?? {}).map(([name, s]) => ({
    name,
    in: where,
    required: where === 'path' || (js.required ?? []).includes(name),
    schema: s,
  }));
}

/**
 * The codes an operation can answer with. A route that lists its domain codes (`errors`) gets
 * those plus what the plumbing adds; an authenticated route that does not gets the whole
 * catalogue, which is true as "may return" if not precise.
 */
export function operationErrorCodes(spec: RouteSpec<z.ZodType, z.ZodType, z.ZodType>): ErrorCode[] {
  const codes = new Set<ErrorCode>(['INTERNAL', 'HEADERS_TOO_LARGE']);
  if (spec.params || spec.query || spec.body) codes.add('VALIDATION_ERROR');
  if (spec.body) for (const c of ['MALFORMED_JSON', 'BODY_TOO_LARGE', 'UNSUPPORTED_ENCODING'] as const) codes.add(c);
  if (spec.invalidBody) codes.add(spec.invalidBody);
  if (spec.auth) for (const c of ['UNAUTHENTICATED', 'RATE_LIMITED'] as const) codes.add(c);
  const domain = spec.errors ?? (spec.auth ? (Object.keys(ERROR_CATALOGUE) as ErrorCode[]) : []);
  for (const c of domain) codes.add(c);
  // A read-only credential is refused every write route, and only those (route(), src/api/http/route.ts).
  // Any authenticated write may meet a lease (issue 56): held (423), with an outdated or malformed fence (409, 400).
  if (spec.auth && routeWrites(spec)) for (const c of ['LOCKED', 'FENCE_STALE', 'INVALID_FENCE'] as const) codes.add(c);
  if (spec.auth && routeWrites(spec)) codes.add('CREDENTIAL_READ_ONLY');
  else codes.delete('CREDENTIAL_READ_ONLY');
  // A route that answers an invalid body with its own code never sends the 422 body for it.
  if (spec.invalidBody && !spec.params && !spec.query) codes.delete('VALIDATION_ERROR');
  return [...codes];
}

function errorResponses(spec: RouteSpec<z.ZodType, z.ZodType, z.ZodType>) {
  const codes = spec.ownErrors ? (['INTERNAL', 'HEADERS_TOO_LARGE'] as ErrorCode[]) : operationErrorCodes(spec);
  const declared = Object.keys(spec.responses)
    .map(Number)
    .filter((s) => s >= 400);
  const out: Record<string, unknown> = {};
  for (const status of [...new Set([...catalogueStatuses(codes), ...declared])].sort()) {
    const own = spec.responses[status];
    const description = [own?.description, codesWithStatus(status, codes).join(', ')].filter(Boolean).join('; ');
    const schema = own?.schema
      ? jsonSchema(own.schema)
      : { $ref: `#/components/schemas/${status === 422 ? 'HTTPValidationError' : 'ErrorEnvelope'}` };
    out[status] = { description, content: { 'application/json': { schema } } };
  }
  return out;
}

function operation(spec: RouteSpec<z.ZodType, z.ZodType, z.ZodType>) {
  const success = Object.entries(spec.responses).filter(([status]) => Number(status) < 400);
  const op: Record<string, unknown> = {
    summary: spec.summary,
    tags: spec.tags,
    operationId: `${spec.method}_${spec.path.replace(/[^A-Za-z0-9]+/g, '_').replace(/^_|_$/g, '')}`,
    parameters: [
      ...parameters(spec.params, 'path'),
      ...parameters(spec.query, 'query'),
      ...parameters(spec.headers, 'header'),
    ],
    responses: {
      ...Object.fromEntries(
        success.map(([status, r]) => [
          status,
          {
            description: r.description,
            ...(r.schema || r.contentType
              ? { content: { [r.contentType ?? 'application/json']: { schema: r.schema ? jsonSchema(r.schema) : {} } } }
              : {}),
          },
        ]),
      ),
      ...errorResponses(spec),
    },
  };
  if (spec.auth) op.security = [{ bearer: [] }];
  if (spec.body || spec.bodyContentType) {
    // A JSON body with required fields is a required body: an absent one fails validation.
    const required =
      !!spec.bodyContentType ||
      !!(spec.body && bodyRequired(jsonSchema(spec.body) as Parameters<typeof bodyRequired>[0]));
    op.requestBody = {
      required,
      content: {
        [spec.bodyContentType ?? 'application/json']: {
          // The input gate reads JSON bodies only (a form body's strings are the endpoint's own).
          schema: spec.body
            ? spec.bodyContentType
              ? jsonSchema(spec.body)
              : requestSchema(spec.body)
            : { type: 'string', format: 'binary' },
        },
      },
    };
  }
  return op;
}

/**
 * A body is required when it has required fields, is a union of shapes (each with its own discriminator), or must have
 * a field (`minProperties`: POST …/edit needs edits or an insert).
 */
const bodyRequired = (schema: { required?: string[]; oneOf?: unknown[]; anyOf?: unknown[]; minProperties?: number }) =>
  !!schema.required?.length || !!schema.oneOf?.length || !!schema.anyOf?.length || (schema.minProperties ?? 0) > 0;
