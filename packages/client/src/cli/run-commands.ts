import type { Command } from 'commander';
import { ok } from '../client.js';
import { createSnapshot, listSnapshots, revertRun, rewindTo, type Point } from '../history.js';
import type { RevertOut, RewindOut } from '../types.js';
import { globals, pointArg } from './command-kit.js';
import { emit, table } from './output.js';
import { driveClient } from './session.js';

/**
 * runs, undo, snapshot, snapshots and rewind (issues 38, 55): the drive's changes by run, undoing one, naming a point
 * to come back to.
 */
export function addRunCommands(program: Command): void {
  program
    .command('runs')
    .description('recent runs (changes grouped by the task that made them), newest first')
    .action(async (_opts: unknown, cmd: Command) => {
      const g = globals(cmd);
      const page = await ok(driveClient(g).api.GET('/v0/runs', { params: { query: { limit: 20 } } }));
      emit(g.json, page.items, () =>
        table(
          page.items.map((r) => {
            const c = r.changes;
            const counts = `+${c.created} ~${c.updated} -${c.deleted} >${c.moved}`;
            return [
              r.run_id,
              r.actor_name ?? r.credential_name ?? r.credential_kind ?? '',
              `#${r.first_seq}-${r.last_seq}`,
              counts,
              r.ended_at,
            ];
          }),
        ),
      );
    });

  program
    .command('undo')
    .description("revert one run's changes (a new run, itself undoable); conflicts with later changes refuse it")
    .argument('<run_id>', 'from agent-drive runs')
    .option('--dry-run', 'show what would be reverted, change nothing')
    .option('--force', 'skip conflicting changes and revert the rest')
    .action(async (runId: string, opts: { dryRun?: boolean; force?: boolean }, cmd: Command) => {
      const g = globals(cmd);
      const r = await revertRun(driveClient(g), runId, opts);
      emit(g.json, r, () => undoLines(r, `agent-drive undo ${runId} --force`));
    });

  program
    .command('snapshot')
    .description('name the drive as it is now, to read (ls/cat --as-of) or rewind to later')
    .argument('<label>', 'a name for it')
    .action(async (label: string, _opts: unknown, cmd: Command) => {
      const g = globals(cmd);
      const s = await createSnapshot(driveClient(g), label);
      emit(g.json, s, () => [
        `${s.snapshot_id} at seq ${s.seq}: ${s.label}`,
        `back to it: agent-drive rewind ${s.snapshot_id} --dry-run`,
      ]);
    });

  program
    .command('snapshots')
    .description("the drive's snapshots, newest first")
    .action(async (_opts: unknown, cmd: Command) => {
      const g = globals(cmd);
      const items = await listSnapshots(driveClient(g));
      emit(g.json, items, () => table(items.map((s) => [s.snapshot_id, `seq ${s.seq}`, s.label, s.created_at])));
    });

  program
    .command('rewind')
    .description('put the drive (or --prefix) back as it was at a snapshot or seq, as one run that undo reverts')
    .argument('<point>', 'a snapshot id (snp_…, from agent-drive snapshots) or a seq', pointArg)
    .option('--prefix <path>', 'only the paths under this prefix')
    .option('--dry-run', 'show what would change, change nothing')
    .option('--force', 'skip conflicting changes and rewind the rest')
    .action(async (point: Point, opts: { prefix?: string; dryRun?: boolean; force?: boolean }, cmd: Command) => {
      const g = globals(cmd);
      const r = await rewindTo(driveClient(g), point, opts);
      emit(g.json, r, () => undoLines(r, `agent-drive rewind ${point} --force`));
    });
}

/** One line per change, worded as what a dry run would do or what the undo did; conflicts name their reason. */
function undoLines(r: RevertOut | RewindOut, forceHint: string): string[] {
  const conflicts = r.changes.filter((c) => c.outcome === 'conflict').length;
  const lines = r.changes.map((c) => {
    const where = c.path ?? c.target_path ?? c.id;
    // From the trash or in place: no arrow; a move names where it goes.
    const to = c.target_path === null ? ' -> trash' : c.path && c.target_path !== c.path ? ` -> ${c.target_path}` : '';
    if (c.outcome === 'conflict') return `conflict   ${where}: ${c.reason ?? 'changed since'}`;
    if (c.outcome === 'unchanged') return `unchanged  ${where}`;
    const steps = c.steps.join('+') || '-';
    return `${r.dry_run ? 'would' : 'did'} ${steps.padEnd(8)} ${where}${to}`;
  });
  if (!r.dry_run) return [...lines, `reverted as run ${r.revert_run_id} (undo that to redo)`];
  const tail = conflicts ? `; ${conflicts} conflict(s): ${forceHint} skips them` : '';
  return [...lines, `(dry run: nothing changed${tail})`];
}
