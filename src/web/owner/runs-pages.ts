import { listRuns, revertRun, type RunRow } from '../../history/runs.js';
import { createSnapshot, deleteSnapshot, listSnapshots, rewindDrive } from '../../history/snapshots.js';
import type { UndoResult } from '../../history/undo.js';
import { csrfField, html, rowsOr, shortTime, type Html } from '../html.js';
import { go, show, type OwnerCall } from '../kit/call.js';
import { form, page, type Declaration } from '../kit/declare.js';
import { flashNotice } from './notice.js';
import { confirmButton } from '../confirm.js';

/**
 * Activity by run ("agent X changed 14 files, 3 minutes ago") with "Undo this run", which shows the dry run first,
 * and Snapshots (make, list, rewind to one, again after a preview). Issue 38; docs/decisions/runs.md. A preview is a
 * form that writes (issue 54): it is charged to the write budget like the undo, and a link or a prefetch computes
 * nothing; its GET page only offers the button.
 */
const ago = (t: Date) => {
  const m = Math.round((Date.now() - new Date(t).getTime()) / 60_000);
  return m < 1 ? 'just now' : m < 60 ? `${m} minute${m === 1 ? '' : 's'} ago` : `at ${shortTime(t)}`;
};

function runLine(r: RunRow): Html {
  const n = ['created', 'updated', 'deleted', 'moved', 'restored', 'other'] as const;
  const total = n.reduce((sum, k) => sum + Number(r[k]), 0);
  const parts = n.filter((k) => Number(r[k]) > 0).map((k) => `${r[k]} ${k}`);
  return html`<tr data-testid="run" data-run-id="${r.run_id}">
    <td>
      <strong>${r.actor_name ?? r.credential_name ?? r.credential_kind ?? 'someone'}</strong> changed ${total} file${total === 1 ? '' : 's'},
      ${ago(r.ended_at)}
      <div class="muted">${parts.join(', ')} · run <code>${r.run_id}</code></div>
    </td>
    <td><a href="/activity/${encodeURIComponent(r.run_id)}/undo">Undo this run…</a></td>
  </tr>`;
}

/** The dry run as a table, and the form that does it for real. */
function preview(csrf: string, r: UndoResult, action: string, label: string): Html {
  const conflicts = r.changes.filter((c) => c.outcome === 'conflict').length;
  const rows = r.changes.map(
    (c) => html`<tr data-testid="change">
      <td>${c.path ?? '(in the trash)'}</td>
      <td>${c.steps.join(', ') || '—'}${c.target_path && c.target_path !== c.path ? html` → ${c.target_path}` : ''}</td>
      <td>${c.outcome}${c.reason ? html` <span class="muted">(${c.reason.replace(/_/g, ' ')})</span>` : ''}</td>
    </tr>`,
  );
  return html`<p>Nothing has changed yet. This is what it would do:</p>
    <table data-testid="preview">
      <thead>
        <tr>
          <th>Now at</th>
          <th>Would</th>
          <th>Outcome</th>
        </tr>
      </thead>
      <tbody>
        ${rowsOr(rows, 3, 'Nothing to undo.')}
      </tbody>
    </table>
    <form method="post" action="${action}">
      ${csrfField(csrf)}
      ${
        conflicts
          ? html`<p class="error">${conflicts} change(s) were changed again later by someone else.</p>
              <label><input type="checkbox" name="force" value="1" /> Skip those and undo the rest</label>`
          : ''
      }
      <button type="submit">${label}</button>
    </form>`;
}

/** The GET page of an undo or a rewind: what it is, and the button that computes its preview. */
const askPreview = (csrf: string, action: string, what: string): Html =>
  html`<p>${what} The preview computes what it would change, and changes nothing.</p>
    <form method="post" action="${action}/preview">
      ${csrfField(csrf)}
      <button type="submit">Preview</button>
    </form>`;

/** Where an undo or a rewind lands: back on its list, saying what it did. */
const done = (back: string, r: UndoResult) => {
  const n = r.changes.filter((c) => c.outcome === 'reverted').length;
  return go(back, { notice: `Done: ${n} change(s) undone as run ${r.revert_run_id}.` });
};

const runIdOf = (c: OwnerCall) => String(c.req.params.runId);
const rewindTo = (c: OwnerCall, dryRun: boolean) =>
  rewindDrive(c.rc, { toSnapshot: String(c.req.params.id), dryRun, force: dryRun || !!c.field('force') });

export const runsPages: Declaration[] = [
  page({ path: '/activity', who: 'owner' }, async (c) => {
    const { items } = await listRuns(c.rc, { limit: 50 });
    return show(
      'Activity by run',
      html`${flashNotice(c.flash(), c.session.csrf, '/activity')}
        <table data-testid="runs">
          <tbody>
            ${rowsOr(items.map(runLine), 2, 'No changes yet.')}
          </tbody>
        </table>`,
    );
  }),

  // The dry run first: the preview is exactly what the undo would do, and its form does it.
  page({ path: '/activity/:runId/undo', who: 'owner' }, async (c) => {
    const action = `/activity/${encodeURIComponent(runIdOf(c))}/undo`;
    return show(`Undo run ${runIdOf(c)}`, askPreview(c.session.csrf, action, 'Undo every change of this run.'));
  }),

  form(
    {
      path: '/activity/:runId/undo/preview',
      who: 'owner',
      writes: true,
      back: '/activity',
      refusalTitle: 'Could not preview the undo',
    },
    async (c) => {
      const r = await revertRun(c.rc, runIdOf(c), { dryRun: true, force: true });
      const action = `/activity/${encodeURIComponent(runIdOf(c))}/undo`;
      return show(`Undo run ${runIdOf(c)}`, preview(c.session.csrf, r, action, 'Undo this run'));
    },
  ),

  form({ path: '/activity/:runId/undo', who: 'owner', writes: true, back: '/activity' }, async (c) =>
    done('/activity', await revertRun(c.rc, runIdOf(c), { dryRun: false, force: !!c.field('force') })),
  ),

  page({ path: '/snapshots', who: 'owner' }, async (c) => {
    const rows = (await listSnapshots(c.rc)).map(
      (s) => html`<tr data-testid="snapshot">
        <td>${s.label}</td>
        <td class="muted">seq ${s.seq} · ${shortTime(s.created_at)}</td>
        <td class="actions-cell">
          <a href="/snapshots/${s.id}/rewind">Rewind to this…</a>
          ${confirmButton({
            label: 'Delete',
            question: `Delete the snapshot “${s.label}”? The drive is not changed; trashed files it kept are deleted on their day.`,
            action: `/snapshots/${s.id}/delete?drive=${c.session.drv}`,
            csrf: c.session.csrf,
            confirm: 'Yes, delete the snapshot',
          })}
        </td>
      </tr>`,
    );
    return show(
      'Snapshots',
      html`${flashNotice(c.flash(), c.session.csrf, '/snapshots')}
        <form method="post" action="/snapshots?drive=${c.session.drv}">
          ${csrfField(c.session.csrf)}
          <label for="snapshot-label">Name the drive as it is now</label>
          <input type="text" id="snapshot-label" name="label" required maxlength="200" />
          <button type="submit">Make a snapshot</button>
        </form>
        <table data-testid="snapshots">
          <tbody>
            ${rowsOr(rows, 3, 'No snapshots yet.')}
          </tbody>
        </table>`,
    );
  }),

  form({ path: '/snapshots', who: 'owner', writes: true, back: '/snapshots' }, async (c) => {
    const s = await createSnapshot(c.rc, c.field('label').slice(0, 200) || 'snapshot');
    return go('/snapshots', { notice: `Snapshot “${s.label}” made at seq ${s.seq}.` });
  }),

  form({ path: '/snapshots/:id/delete', who: 'owner', writes: true, back: '/snapshots' }, async (c) => {
    const s = await deleteSnapshot(c.rc, String(c.req.params.id));
    return go('/snapshots', { notice: `Snapshot “${s.label}” deleted.` });
  }),

  page({ path: '/snapshots/:id/rewind', who: 'owner' }, async (c) => {
    const action = `/snapshots/${encodeURIComponent(String(c.req.params.id))}/rewind`;
    return show(
      'Rewind the drive',
      askPreview(c.session.csrf, action, 'Put the drive back as it was at this snapshot.'),
    );
  }),

  form(
    {
      path: '/snapshots/:id/rewind/preview',
      who: 'owner',
      writes: true,
      back: '/snapshots',
      refusalTitle: 'Could not preview the rewind',
    },
    async (c) => {
      const action = `/snapshots/${encodeURIComponent(String(c.req.params.id))}/rewind`;
      return show('Rewind the drive', preview(c.session.csrf, await rewindTo(c, true), action, 'Rewind the drive'));
    },
  ),

  form({ path: '/snapshots/:id/rewind', who: 'owner', writes: true, back: '/snapshots' }, async (c) =>
    done('/snapshots', await rewindTo(c, false)),
  ),
];
