import { z } from 'zod';
import { DEFAULT_MEMORY_PREFIX } from '../files/memory/memory-tree.js';
import { PATH_SEGMENT } from './artifact-schemas.js';

/**
 * One memory tool command as the model emits it (Anthropic `memory_20250818`), shared by POST /v0/memory and the MCP
 * `memory` tool. Sizes are bounded here; the text's byte size is the drive's upload limit.
 */
const memoryPath = z.string().max(1024);
const text = z.string().max(16 * 1024 * 1024);

export const memoryCommandSchema = z.discriminatedUnion('command', [
  z.object({
    command: z.literal('view'),
    path: memoryPath,
    view_range: z.array(z.number().int()).max(8).optional(),
  }),
  z.object({ command: z.literal('create'), path: memoryPath, file_text: text }),
  z.object({ command: z.literal('str_replace'), path: memoryPath, old_str: text, new_str: text }),
  z.object({
    command: z.literal('insert'),
    path: memoryPath,
    insert_line: z.number().int(),
    insert_text: text,
  }),
  z.object({ command: z.literal('delete'), path: memoryPath }),
  z.object({ command: z.literal('rename'), old_path: memoryPath, new_path: memoryPath }),
]);

/**
 * An API key's `memory_prefix`: a folder path by the spec's path rule (segments of [A-Za-z0-9_.-], no `.`, `..` or
 * empty segment, no leading slash, a trailing one dropped), not under `_wiki/`, at most 200 characters. All of it is
 * the schema's pattern, so a prefix that breaks it is a 422 like any other body field's.
 */
export const MEMORY_PREFIX_PATTERN = `^(?!_wiki(?:/|$))${PATH_SEGMENT}(?:/${PATH_SEGMENT})*/?$`;
export const memoryPrefixSchema = z
  .string()
  .max(200)
  .regex(new RegExp(MEMORY_PREFIX_PATTERN), {
    message: "a folder path of [A-Za-z0-9_.-] segments (no '.', '..' or empty one, no leading slash), not under _wiki/",
  })
  .transform((p) => p.replace(/\/$/, ''))
  .describe(
    `the drive folder the memory tool's /memories maps to for this key (default ${DEFAULT_MEMORY_PREFIX}); ` +
      'a folder path (spec 8), not under _wiki/',
  );

export const memoryResultSchema = z.object({
  result: z.string().describe('the tool result string, as the reference memory backend returns it'),
  is_error: z.boolean(),
});

/** POST /v0/patch and MCP apply_patch: a V4A patch and optional expected versions by path. */
export const patchBodySchema = z.object({
  patch: z
    .string()
    .min(1)
    .max(4 * 1024 * 1024),
  preconditions: z
    .record(z.string().max(1024), z.number().int().min(1))
    .optional()
    .describe('expected version_number by path (If-Match per file)'),
});

export const patchResultSchema = z.object({
  applied: z.boolean(),
  files: z.array(
    z.object({
      path: z.string(),
      action: z.enum(['add', 'update', 'delete', 'move']),
      version: z.number().int().optional(),
      moved_to: z.string().optional(),
    }),
  ),
});
