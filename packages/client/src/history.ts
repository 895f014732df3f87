import { ok, type DriveClient } from './client.js';
import { DriveError } from './errors.js';
import type { RevertOut, RewindOut, RunPage, SnapshotOut } from './types.js';

/**
 * Runs, undo, snapshots and rewind (docs/decisions/runs.md) for the SDK's `Drive` and the CLI: one place that knows
 * the routes, and that a point of the drive's feed is a seq or a snapshot id (`snp_…`).
 */

/** A point of the drive's feed: a seq, or a snapshot's id (its seq). */
export type Point = number | string;

const SNAPSHOT_ID = /^snp_[A-Za-z0-9]+$/;

/** A fresh run id for one SDK `Drive` or one CLI invocation: everything it changes is one run, undone by one undo. */
export const newRunId = (origin: string) =>
  `${origin}-${new Date().toISOString().replace(/[-:.]/g, '').slice(0, 15)}-${Math.random().toString(36).slice(2, 8)}`;

export const listRuns = (client: DriveClient, options: { cursor?: string; limit?: number } = {}): Promise<RunPage> =>
  ok(client.api.GET('/v0/runs', { params: { query: options } }));

/** Reverts one run (a preview with `dryRun`); 409 RUN_CONFLICT names what others changed since, unless `force`. */
export const revertRun = (
  client: DriveClient,
  runId: string,
  options: { dryRun?: boolean; force?: boolean } = {},
): Promise<RevertOut> =>
  ok(
    client.api.POST('/v0/runs/{run_id}/revert', {
      params: { path: { run_id: runId } },
      body: { dry_run: !!options.dryRun, force: !!options.force },
    }),
  );

export const createSnapshot = (client: DriveClient, label: string): Promise<SnapshotOut> =>
  ok(client.api.POST('/v0/snapshots', { body: { label } }));

export async function listSnapshots(client: DriveClient): Promise<SnapshotOut[]> {
  return (await ok(client.api.GET('/v0/snapshots'))).items;
}

/** Puts the drive (or the paths under `prefix`) back as it was at a seq or a snapshot, as one revertible run. */
export const rewindTo = (
  client: DriveClient,
  to: Point,
  options: { prefix?: string; dryRun?: boolean; force?: boolean } = {},
): Promise<RewindOut> =>
  ok(
    client.api.POST('/v0/drives/me/rewind', {
      body: {
        ...(typeof to === 'number' ? { to_seq: to } : { to_snapshot: to }),
        prefix: options.prefix,
        dry_run: !!options.dryRun,
        force: !!options.force,
      },
    }),
  );

/** A point as a seq: a number as is, a snapshot id by its seq (404 SNAPSHOT_NOT_FOUND when there is none). */
export async function seqOf(client: DriveClient, point: Point): Promise<number> {
  if (typeof point === 'number') return point;
  const snapshot = (await listSnapshots(client)).find((s) => s.snapshot_id === point);
  if (!snapshot) throw new DriveError(404, 'SNAPSHOT_NOT_FOUND', `no snapshot ${point} on this drive`);
  return snapshot.seq;
}

/** A command-line point: digits are a seq, `snp_…` a snapshot id; anything else is refused. */
export function parsePoint(value: string): Point {
  if (/^\d+$/.test(value)) return Number(value);
  if (SNAPSHOT_ID.test(value)) return value;
  throw new DriveError(400, 'INVALID_ARGUMENT', `not a seq or a snapshot id (snp_…): ${value}`);
}
