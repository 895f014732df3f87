import { z } from 'zod';
import type { Config } from '../lib/config.js';
import type { EditResult } from '../files/edit.js';
import { artifactOut } from './artifacts.js';
import { artifactOutSchema } from './artifact-schemas.js';

/**
 * POST /v0/artifacts/{art_id}/edit and the MCP `edit` tool (issue 57, line operations at every door): exact-text
 * replacements and an insert at a line, one new version. The body's two rules the fields alone cannot state (an insert
 * needs its text; something must change) are 422 like any invalid field; the document states them too.
 */
export const textEditSchema = z.strictObject({
  old_text: z.string().min(1),
  new_text: z.string(),
  replace_all: z.boolean().default(false),
});

export const editBodySchema = z
  .strictObject({
    edits: z.array(textEditSchema).max(100).default([]).describe('applied in order, each on the result of the last'),
    insert_line: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe('insert insert_text after this line (0: at the top), once the edits are applied'),
    insert_text: z
      .string()
      .optional()
      .describe('required with insert_line (422 without); its trailing newlines dropped'),
    dry_run: z.boolean().default(false).describe('answer the diff and write nothing'),
    merge: z
      .boolean()
      .optional()
      .describe('with an older If-Match: edit that version, then merge three-way with the current one'),
    change_summary: z.string().max(1000).optional(),
  })
  .superRefine((b, ctx) => {
    if (b.insert_line !== undefined && b.insert_text === undefined)
      ctx.addIssue({ code: 'custom', path: ['insert_text'], message: 'insert_text is required with insert_line' });
    if (b.insert_line === undefined && b.insert_text !== undefined)
      ctx.addIssue({ code: 'custom', path: ['insert_line'], message: 'insert_text needs insert_line' });
    if (b.insert_line === undefined && b.insert_text === undefined && b.edits.length === 0)
      ctx.addIssue({
        code: 'custom',
        path: ['edits'],
        message: 'give at least one edit, or insert_line and insert_text',
      });
  })
  // The JSON Schema says both rules in keywords that leave the SDK's generated type a plain object.
  .meta({
    minProperties: 1,
    dependentRequired: { insert_line: ['insert_text'], insert_text: ['insert_line'] },
    if: { not: { required: ['insert_line'] } },
    then: { required: ['edits'], properties: { edits: { minItems: 1 } } },
  });

export const editResultSchema = z.object({
  applied: z.boolean().describe('a new version was written (false: a dry run, or the text came out the same)'),
  path: z.string(),
  base_version: z.number().int().describe('the version the edit was computed on'),
  replacements: z.number().int(),
  diff: z.string().describe('unified diff from base_version (bounded; a note in its place past the bounds)'),
  artifact: artifactOutSchema.nullable().describe('the artifact at its new version; null when nothing was written'),
});

/** The answer of an edit at every door (MCP adds its own cut of the diff). */
export function editOut(config: Config, r: EditResult) {
  return {
    applied: r.applied,
    path: r.path,
    base_version: r.baseVersion,
    replacements: r.replacements,
    diff: r.diff,
    artifact: r.artifact ? artifactOut(config, r.artifact) : null,
  };
}

/** The body as the domain's EditInput fields (the target and If-Match come from elsewhere). */
export function editInputOf(b: {
  edits: z.output<typeof textEditSchema>[];
  insert_line?: number;
  insert_text?: string;
  dry_run: boolean;
  merge?: boolean;
  change_summary?: string;
}) {
  return {
    edits: b.edits.map((e) => ({ oldText: e.old_text, newText: e.new_text, replaceAll: e.replace_all })),
    dryRun: b.dry_run,
    merge: b.merge,
    changeSummary: b.change_summary,
    insert: b.insert_line === undefined ? undefined : { line: b.insert_line, text: b.insert_text ?? '' },
  };
}
