import { z } from 'zod';
import { revertRun, runsOrRun } from '../history/runs.js';
import { runDetailOut, runOut, undoOut } from '../shapes/runs.js';
import { cursorArg, defineTool, READ_ONLY, writes, type ToolEnv, type ToolSet } from './tool-kit.js';

/** runs and undo (issue 38): changes grouped by run, and undoing one run. */
const runIdArg = z.string().max(64);

type UndoAnswer = ReturnType<typeof undoOut>;

/**
 * The undo's answer as lines an agent can act on: the counts, then each change (what it would do, or did) and each
 * conflict with its reason, so a preview names the files and the one in the way (issue 55).
 */
export function undoText(r: UndoAnswer): string {
  const n = (o: string) => r.changes.filter((c) => c.outcome === o).length;
  const verb = r.dry_run ? 'would revert' : 'reverted';
  const head = `${verb} ${n('reverted')}, unchanged ${n('unchanged')}, conflicts ${n('conflict')}`;
  const lines = r.changes.map((c) => {
    const where = c.path ?? c.target_path ?? c.id;
    const to = c.target_path === null ? ' -> trash' : c.path && c.target_path !== c.path ? ` -> ${c.target_path}` : '';
    if (c.outcome === 'conflict') return `conflict ${where}: ${c.reason ?? 'conflict'}`;
    if (c.outcome === 'unchanged') return `unchanged ${where}`;
    return `${r.dry_run ? 'would' : 'did'} ${c.steps.join('+') || 'nothing'} ${where}${to}`;
  });
  const tail = r.revert_run_id
    ? `undo this with undo(run_id="${r.revert_run_id}")`
    : n('conflict')
      ? 'nothing changed; undo with force=true skips the conflicts'
      : 'nothing changed (dry run)';
  return [head, ...lines, tail].join('\n');
}

export function registerRunTools(server: ToolSet, env: ToolEnv): void {
  defineTool(
    server,
    env,
    'runs',
    {
      title: 'Runs',
      description: "Recent runs (each task's changes, newest first), or one run's changes.",
      input: { run_id: runIdArg.optional(), cursor: cursorArg },
      annotations: READ_ONLY,
      budget: 'read',
    },
    async (args, rc) => {
      const r = await runsOrRun(rc, { runId: args.run_id, cursor: args.cursor, limit: 20 });
      if (r.kind === 'run') {
        const run = runDetailOut(r);
        const lines = run.changed.map((c) => `${c.seq} ${c.action} ${c.to ?? c.path ?? c.fld_id}`);
        return { structured: run, text: `Run ${run.run_id}: ${lines.length} change(s)\n${lines.join('\n')}` };
      }
      const items = r.items.map(runOut);
      const lines = items.map(
        (x) =>
          `${x.run_id} ${x.actor_name ?? x.credential_name ?? x.credential_kind ?? ''} seq ${x.first_seq}-${x.last_seq} ${x.ended_at}`,
      );
      return {
        structured: { items, next_cursor: r.next_cursor },
        text: `${items.length} run(s):\n${lines.join('\n')}`,
      };
    },
  );

  defineTool(
    server,
    env,
    'undo',
    {
      title: 'Undo a run',
      description:
        'Reverts a run (new files trashed; overwrites, moves, deletes put back). dry_run previews; ' +
        'later changes by others: RUN_CONFLICT unless force.',
      input: { run_id: runIdArg, dry_run: z.boolean().default(false), force: z.boolean().default(false) },
      annotations: writes(true, false),
      budget: 'write',
    },
    async (args, rc) => {
      const r = undoOut(await revertRun(rc, args.run_id, { dryRun: args.dry_run, force: args.force }));
      return { structured: { run_id: args.run_id, ...r }, text: undoText(r) };
    },
  );
}
