import { z } from 'zod';
import { registeredRoutes, type RouteSpec } from './http/route.js';

/** Builds the OpenAPI 3.1 document from the routes registered with `route()`. */
export function buildOpenApiDocument(serverUrl: string) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const spec of registeredRoutes) {
    const openapiPath = spec.path.replace(/:(\w+)/g, '{$1}').replace(/\*(\w+)/g, '{$1}');
    paths[openapiPath] ??= {};
    paths[openapiPath][spec.method] = operation(spec);
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Agent Artifact Drive', version: '0.0.1' },
    servers: [{ url: serverUrl }],
    paths,
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      schemas: { ErrorEnvelope: jsonSchema(errorEnvelopeSchema) },
    },
  };
}

const errorEnvelopeSchema = z.object({
  detail: z.object({ error: z.looseObject({ code: z.string(), message: z.string() }) }),
});

function jsonSchema(schema: z.ZodType) {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  return rest;
}

function parameters(schema: z.ZodType | undefined, where: 'path' | 'query' | 'header') {
  if (!schema) return [];
  const js = jsonSchema(schema) as { properties?: Record<string, unknown>; required?: string[] };
  return Object.entries(js.properties ?? {}).map(([name, s]) => ({
    name,
    in: where,
    required: where === 'path' || (js.required ?? []).includes(name),
    schema: s,
  }));
}

function operation(spec: RouteSpec<z.ZodType, z.ZodType, z.ZodType>) {
  const op: Record<string, unknown> = {
    summary: spec.summary,
    tags: spec.tags,
    operationId: `${spec.method}_${spec.path.replace(/[^A-Za-z0-9]+/g, '_').replace(/^_|_$/g, '')}`,
    parameters: [
      ...parameters(spec.params, 'path'),
      ...parameters(spec.query, 'query'),
      ...parameters(spec.headers, 'header'),
    ],
    responses: Object.fromEntries(
      Object.entries(spec.responses).map(([status, r]) => [
        status,
        {
          description: r.description,
          ...(r.schema || r.contentType
            ? { content: { [r.contentType ?? 'application/json']: { schema: r.schema ? jsonSchema(r.schema) : {} } } }
            : {}),
        },
      ]),
    ),
  };
  if (spec.auth) op.security = [{ bearer: [] }];
  if (spec.body || spec.bodyContentType) {
    op.requestBody = {
      required: !!spec.bodyContentType,
      content: {
        [spec.bodyContentType ?? 'application/json']: {
          schema: spec.body ? jsonSchema(spec.body) : { type: 'string', format: 'binary' },
        },
      },
    };
  }
  (op.responses as Record<string, unknown>)['default'] = {
    description: 'Error',
    content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } },
  };
  return op;
}
