import { z } from 'zod';
import { idPattern, type IdPrefix } from '../lib/ids.js';
import { llmIndexSchema } from '../wiki/llm-index.js';

/**
 * Response and request shapes of the artifact, version, folder, trash and event endpoints (for validation and OpenAPI).
 */
const ts = z.string().describe('RFC 3339 timestamp');

export const sourceRefSchema = z.object({
  type: z.string().min(1).max(64),
  id: z.string().max(256),
  metadata: z.record(z.string(), z.unknown()).nullable().optional(),
});
export const sourceSchema = z.object({ refs: z.array(sourceRefSchema).max(64) });

export const artifactOutSchema = z.object({
  art_id: z.string(),
  drive_id: z.string(),
  path: z.string(),
  filename: z
    .string()
    .nullable()
    .describe(
      'the name a person gave the file (X-Drive-Filename) when it was mapped to path; null when none was given or it did not map to the last segment',
    ),
  url: z.string(),
  permalink: z.string(),
  content_type: z.string(),
  file_type: z.string(),
  size_bytes: z.number().int(),
  hash: z.string(),
  version_number: z.number().int(),
  labels: z.array(z.string()),
  metadata: z.record(z.string(), z.unknown()),
  source: sourceSchema,
  visibility: z.string(),
  created_at: ts,
  updated_at: ts,
  deleted_at: ts.nullable(),
  purge_at: ts.nullable(),
  indexed_at: ts
    .nullable()
    .describe('when the current version was fully indexed (searchable by /v0/search and /v0/find); null until then'),
  embedded_at: ts
    .nullable()
    .describe("when the current version's passages were embedded for semantic find; null without a provider"),
  llm_index: llmIndexSchema
    .nullable()
    .describe(
      "the wiki's reading of the content ({summary, outline, entities, concepts}); null until a wiki pass made one or with no language model",
    ),
  merged: z
    .object({ base: z.number().int(), theirs: z.number().int() })
    .optional()
    .describe('only on a write that merged three-way (X-Drive-Merge): the common ancestor and the version merged with'),
  extraction: z
    .string()
    .nullable()
    .optional()
    .describe(
      'only on a read of one artifact as it is now (GET by id, …/meta): how its text was read for search, as the last ' +
        'indexing of this version left it (done, partial: <why>, failed: <why>); null when its content is not read, ' +
        'or not indexed yet',
    ),
});

const hunkSide = z.object({ start: z.number().int(), lines: z.array(z.string()), truncated: z.boolean().optional() });

/** 409 of a PUT: the usual envelope; MERGE_CONFLICT adds the hunks (docs/decisions/merge.md). */
export const mergeConflictSchema = z.object({
  detail: z.object({
    error: z.looseObject({
      code: z.string(),
      message: z.string(),
      base: z.number().int().optional(),
      theirs: z.number().int().optional(),
      conflicts: z
        .array(z.object({ base: hunkSide, ours: hunkSide, theirs: hunkSide }))
        .optional()
        .describe('MERGE_CONFLICT: overlapping hunks, at most 50, each side at most 200 lines (1-based start lines)'),
    }),
  }),
});

/** X-Drive-Merge on a PUT. */
export const mergeHeader = z
  .string()
  .meta({ enum: ['three-way'] })
  .optional()
  .describe(
    'three-way: an If-Match older than the current version merges this text with the current one against version ' +
      'If-Match (200 with merged; 409 MERGE_CONFLICT with hunks; binary 412; 413 MERGE_TOO_LARGE)',
  );

export const pageSchema = z.object({ items: z.array(artifactOutSchema), next_cursor: z.string().nullable() });

export const versionOutSchema = z.object({
  art_id: z.string(),
  version_number: z.number().int(),
  size_bytes: z.number().int(),
  hash: z.string(),
  content_type: z.string(),
  actor_name: z.string().nullable(),
  change_summary: z.string().nullable(),
  created_at: ts,
});
export const versionPageSchema = z.object({
  items: z.array(versionOutSchema),
  next_cursor: z.string().nullable(),
  pruned_before: z.number().int().nullable(),
});

export const downloadUrlOutSchema = z.object({
  url: z.string(),
  direct: z.boolean(),
  expires_at: ts.nullable(),
  size_bytes: z.number().int(),
  content_type: z.string(),
  filename: z.string(),
});

export const deleteOutSchema = z.object({
  ok: z.literal(true),
  art_id: z.string(),
  path: z.string(),
  deleted_at: ts,
  purge_at: ts,
  retention_days: z.number(),
  restore_url: z.string(),
});

export const eventOutSchema = z.object({
  id: z.string(),
  seq: z
    .number()
    .int()
    .min(1)
    .describe("position in the drive's change feed: strictly increasing in commit order, no gaps a reader can see"),
  drive_id: z.string(),
  art_id: z.string().nullable(),
  fld_id: z.string().nullable(),
  action: z.string(),
  actor_name: z.string().nullable(),
  metadata: z.record(z.string(), z.unknown()),
  created_at: ts,
  run_id: z
    .string()
    .nullable()
    .describe("the run the change belongs to (X-Drive-Run-Id, or the default rule); null for the service's own work"),
});
export const eventPageSchema = z.object({ items: z.array(eventOutSchema), next_cursor: z.string().nullable() });

export const folderOutSchema = z.object({
  fld_id: z.string(),
  id: z.string(),
  drive_id: z.string(),
  path: z.string().describe('canonical form with leading and trailing slash'),
  description: z.string().nullable(),
  inherit_grants: z.boolean(),
  created_at: ts,
  updated_at: ts,
  deleted_at: ts.nullable(),
  purge_at: ts.nullable(),
});

/** GET /v0/folders/{path} and /meta: a folder record, or one only the paths of live artifacts imply. */
export const folderReadOutSchema = z.union([
  folderOutSchema.extend({ implied: z.literal(false).describe('the folder has a record') }),
  folderOutSchema.extend({
    fld_id: z.null(),
    id: z.null(),
    description: z.null(),
    created_at: z.null(),
    updated_at: z.null(),
    deleted_at: z.null(),
    purge_at: z.null(),
    implied: z
      .literal(true)
      .describe(
        'no record: only the paths of live artifacts under it imply the folder (POST /v0/folders, a share or a grant makes one)',
      ),
  }),
]);

export const folderDeleteOutSchema = z.object({
  ok: z.literal(true),
  fld_id: z.string(),
  id: z.string(),
  path: z.string(),
  deleted_at: ts,
  purge_at: ts,
  retention_days: z.number(),
  n_subfolders_deleted: z.number().int(),
  n_artifacts_deleted: z.number().int(),
});

/** An id of one kind (`art_…`, `fld_…`), as route parameters and request fields take it. */
export const idOf = (prefix: IdPrefix) => z.string().regex(idPattern(prefix));

/** A boolean query parameter: `true` or `false` as sent (a query string has no booleans), false when left out. */
export const queryFlag = (description?: string) => {
  const flag = z
    .enum(['true', 'false'])
    .default('false')
    .transform((v) => v === 'true');
  return description ? flag.describe(description) : flag;
};

export const actorHeader = z.string().max(64).optional().describe('X-Drive-Actor: attribution only, at most 64 chars');
/**
 * The spec's path rules (spec 8) as a JSON Schema pattern, so generated and hand-written requests
 * can follow them: segments of [A-Za-z0-9_.-] joined by '/', none empty, '.' or '..'. Declared, not
 * enforced by the validator: a path that breaks them is the spec's 400 INVALID_PATH (checkPath).
 */
export const PATH_SEGMENT = String.raw`(?:[A-Za-z0-9_-][A-Za-z0-9_.-]*|\.\.[A-Za-z0-9_.-]+|\.[A-Za-z0-9_-][A-Za-z0-9_.-]*)`;
export const ARTIFACT_PATH_PATTERN = `^${PATH_SEGMENT}(?:/${PATH_SEGMENT})*$`;
/** Folders take the same path, with an optional leading and trailing slash (stored without). */
export const FOLDER_PATH_PATTERN = `^/?${PATH_SEGMENT}(?:/${PATH_SEGMENT})*/?$`;
export const folderPath = (description: string) =>
  z
    .string()
    .min(1)
    .meta({
      pattern: FOLDER_PATH_PATTERN,
      maxLength: 256,
      description: `${description}; path rules of spec 8, slashes around it optional (400 INVALID_PATH)`,
    });
export const artifactPath = (description: string) =>
  z
    .string()
    .min(1)
    .meta({
      pattern: ARTIFACT_PATH_PATTERN,
      maxLength: 256,
      description: `${description}; path rules of spec 8 (400 INVALID_PATH)`,
    });

/**
 * If-Match as ifMatchOf reads it (`3`, `"3"`, `W/"3"`); declared, while another form is the spec's 400
 * INVALID_IF_MATCH.
 */
export const ifMatchHeader = z
  .string()
  .meta({
    pattern: String.raw`^\s*(?:W/)?"?[0-9]{1,9}"?\s*$`,
    description: 'expected current version number, bare or quoted',
  })
  .optional();

/**
 * An opaque `next_cursor` as the server writes it (base64url): declared, while anything else is the spec's 400
 * BAD_CURSOR.
 */
export const cursorParam = z
  .string()
  .max(2048)
  .meta({
    pattern: '^[A-Za-z0-9_-]*$',
    description: 'next_cursor of the previous page (opaque, base64url); empty is the first page',
  })
  .optional();
export const limitParam = (max: number, dflt: number) => z.coerce.number().int().min(1).max(max).default(dflt);
/** A repeatable query parameter: Express gives a string once, an array when repeated. */
export const repeatable = z
  .union([z.string(), z.array(z.string())])
  .optional()
  .transform((v) => (v === undefined ? [] : Array.isArray(v) ? v : [v]));

/** X-Drive-Filename: the original file name kept beside a mapped path (GET /v0/paths/suggest maps names). */
export const filenameHeader = z
  .string()
  .optional()
  .describe(
    "the file's original name, RFC 8187 (UTF-8''Meeting%20notes%20%28draft%29.md) or plain ASCII taken literally (a percent escape without UTF-8'' is 400 INVALID_FILENAME), normalised to NFC; kept as filename only while the name rule (GET /v0/paths/suggest) maps it to the path's last segment, else not kept; 400 INVALID_FILENAME for a slash, a control or a Unicode format (Cf) character",
  );
