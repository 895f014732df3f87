import type { Command } from 'commander';
import { ok } from '../client.js';
import { globals } from './command-kit.js';
import { emit, table } from './output.js';
import { driveClient } from './session.js';

/** runs, undo and snapshot (issue 38): the drive's changes by run, undoing one, naming a point to come back to. */
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
              r.actor_name ?? r.credential_kind ?? '',
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
      const r = await ok(
        driveClient(g).api.POST('/v0/runs/{run_id}/revert', {
          params: { path: { run_id: runId } },
          body: { dry_run: !!opts.dryRun, force: !!opts.force },
        }),
      );
      emit(g.json, r, () => [
        ...r.changes.map(
          (c) => `${c.outcome.padEnd(9)} ${c.steps.join('+') || '-'}  ${c.path ?? c.target_path ?? c.id}`,
        ),
        r.dry_run ? '(dry run: nothing changed)' : `reverted as run ${r.revert_run_id}`,
      ]);
    });

  program
    .command('snapshot')
    .description('name the drive as it is now, to read (ls --as-of) or rewind to later')
    .argument('<label>', 'a name for it')
    .action(async (label: string, _opts: unknown, cmd: Command) => {
      const g = globals(cmd);
      const s = await ok(driveClient(g).api.POST('/v0/snapshots', { body: { label } }));
      emit(g.json, s, () => [`${s.snapshot_id} at seq ${s.seq}: ${s.label}`]);
    });
}
