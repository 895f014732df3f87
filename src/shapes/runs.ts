import { z } from 'zod';
import type { RunRow } from '../history/runs.js';
import type { ReplayEvent } from '../history/replay.js';
import type { SnapshotRow } from '../history/snapshots.js';
import type { UndoResult } from '../history/undo.js';
import { iso } from '../lib/time.js';

/** Runs, reverts, snapshots and rewinds (issue 38): public shapes and their schemas. */

const ts = z.string().describe('RFC 3339 timestamp');

export const runOutSchema = z.object({
  run_id: z.string(),
  actor_name: z.string().nullable().describe('the last X-Drive-Actor the run named'),
  credential_kind: z.string().nullable().describe('api_key, access_token, mcp_oauth, web_session, …'),
  credential_name: z
    .string()
    .nullable()
    .describe('what the person called the credential: the API key’s label or the OAuth app’s name (null: none)'),
  first_seq: z.number().int(),
  last_seq: z.number().int(),
  started_at: ts,
  ended_at: ts,
  changes: z.object({
    created: z.number().int(),
    updated: z.number().int(),
    deleted: z.number().int(),
    moved: z.number().int(),
    restored: z.number().int(),
    other: z.number().int(),
  }),
});

export const runOut = (r: RunRow) => ({
  run_id: r.run_id,
  actor_name: r.actor_name,
  credential_kind: r.credential_kind,
  credential_name: r.credential_name,
  first_seq: Number(r.first_seq),
  last_seq: Number(r.last_seq),
  started_at: iso(r.started_at)!,
  ended_at: iso(r.ended_at)!,
  changes: {
    created: Number(r.created),
    updated: Number(r.updated),
    deleted: Number(r.deleted),
    moved: Number(r.moved),
    restored: Number(r.restored),
    other: Number(r.other),
  },
});

export const runPageSchema = z.object({ items: z.array(runOutSchema), next_cursor: z.string().nullable() });

const runChangeSchema = z.object({
  seq: z.number().int(),
  action: z.string(),
  art_id: z.string().nullable(),
  fld_id: z.string().nullable(),
  path: z.string().nullable(),
  from: z.string().nullable(),
  to: z.string().nullable(),
  version_number: z.number().int().nullable(),
  created_at: ts,
});

export const runDetailSchema = runOutSchema.extend({
  changed: z.array(runChangeSchema).describe('the run’s changes, oldest first'),
  next_cursor: z.string().nullable(),
});

export const runDetailOut = (d: {
  run: RunRow;
  changes: (ReplayEvent & { created_at: Date })[];
  next_cursor: string | null;
}) => ({
  ...runOut(d.run),
  changed: d.changes.map((e) => ({
    seq: Number(e.seq),
    action: e.action,
    art_id: e.art_id,
    fld_id: e.fld_id,
    path: e.path,
    from: e.from_path,
    to: e.to_path,
    version_number: e.version,
    created_at: iso(e.created_at)!,
  })),
  next_cursor: d.next_cursor,
});

const undoChangeSchema = z.object({
  kind: z.enum(['artifact', 'folder']),
  id: z.string(),
  path: z.string().nullable().describe('where it is now (null: in the trash or gone)'),
  target_path: z.string().nullable().describe('where the undo puts it (null: to the trash)'),
  steps: z
    .array(z.string())
    .describe('trash, restore, move, version (new version with the old bytes), undelete, delete'),
  outcome: z.enum(['reverted', 'conflict', 'unchanged']),
  reason: z.enum(['changed_by_another_run', 'path_occupied', 'folder_not_empty']).optional(),
});

export const undoOutSchema = z.object({
  dry_run: z.boolean(),
  revert_run_id: z.string().nullable().describe('the run the undo made (itself revertible); null on a dry run'),
  changes: z.array(undoChangeSchema),
});

export const revertOutSchema = undoOutSchema.extend({ run_id: z.string() });
export const rewindOutSchema = undoOutSchema.extend({ to_seq: z.number().int() });

export const undoOut = (r: UndoResult) => ({ dry_run: r.dry_run, revert_run_id: r.revert_run_id, changes: r.changes });

export const snapshotOutSchema = z.object({
  snapshot_id: z.string(),
  seq: z.number().int(),
  label: z.string(),
  created_at: ts,
});

export const snapshotOut = (s: SnapshotRow) => ({
  snapshot_id: s.id,
  seq: Number(s.seq),
  label: s.label,
  created_at: iso(s.created_at)!,
});
