import { z } from 'zod';

/**
 * The JSON side of a tool's arguments: the schema tools/list publishes (compact, portable to strict clients, closed to
 * unknown arguments) and the readable message for arguments that fail it.
 */

type Json = Record<string, unknown>;

const isEmptySchema = (v: unknown) =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && !Object.keys(v).length;

/**
 * Drops what costs characters and tells a client nothing: `$schema`, `propertyNames: {type: string}` (JSON keys are
 * strings), the regular expression zod writes beside `format: "date-time"`. A free-form value (`{}`, which strict
 * clients flag as untyped) becomes `additionalProperties: true` on its object.
 */
function compact(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(compact);
  if (typeof node !== 'object' || node === null) return node;
  const o = node as Json;
  const out: Json = {};
  for (const [k, v] of Object.entries(o)) {
    if (k === '$schema' || k === 'propertyNames') continue;
    if (k === 'pattern' && typeof o.format === 'string') continue;
    if ((k === 'maximum' || k === 'minimum') && Math.abs(v as number) === Number.MAX_SAFE_INTEGER) continue;
    if (k === 'additionalProperties' && isEmptySchema(v)) {
      out[k] = true;
      continue;
    }
    out[k] = compact(v);
  }
  return out;
}

/** What tools/list shows for a schema whose full form costs more than it tells (the validator stays exact). */
const shownAs = new WeakMap<object, Json>();
export function publishAs<T extends z.ZodType>(schema: T, json: Json): T {
  shownAs.set(schema, json);
  return schema;
}

/** The published input schema: a closed object (unknown arguments are refused), compacted. */
export function argumentsJsonSchema(shape: z.ZodRawShape): Json {
  const json = z.toJSONSchema(z.strictObject(shape), {
    io: 'input',
    unrepresentable: 'any',
    override: (ctx) => {
      const shown = shownAs.get(ctx.zodSchema);
      if (!shown) return;
      for (const key of Object.keys(ctx.jsonSchema)) delete (ctx.jsonSchema as Json)[key];
      Object.assign(ctx.jsonSchema, shown);
    },
  });
  return compact(json) as Json;
}

/** Names every problem with the arguments, by argument: what was wrong and, for unknown ones, what is accepted. */
export function argumentProblems(tool: string, error: z.ZodError, accepted: string[]) {
  const names: string[] = [];
  const parts = error.issues.slice(0, 8).map((issue) => {
    const at = issue.path.map(String).join('.');
    if (issue.code === 'unrecognized_keys') {
      const keys = issue.keys.map((k) => (at ? `${at}.${k}` : k));
      names.push(...keys);
      const accepts = at ? '' : ` (${tool} accepts: ${accepted.join(', ') || 'no arguments'})`;
      return `unknown argument${keys.length > 1 ? 's' : ''} ${keys.map((k) => `"${k}"`).join(', ')}${accepts}`;
    }
    names.push(at || '(arguments)');
    if (issue.code === 'invalid_type' && /received undefined$/.test(issue.message))
      return `argument "${at}" is required (${issue.message.replace(/^Invalid input: /, '').replace(/, received undefined$/, '')})`;
    return `argument "${at || '(arguments)'}": ${issue.message.replace(/^Invalid input: /, '')}`;
  });
  return { message: `${tool}: ${parts.join('; ')}`, arguments: [...new Set(names)] };
}
