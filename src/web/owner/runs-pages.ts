import { Router, type Request, type Response } from 'express';
import type { AppContext } from '../../platform/context.js';
import { listRuns, revertRun, type RunRow } from '../../history/runs.js';
import { createSnapshot, listSnapshots, rewindDrive } from '../../history/snapshots.js';
import type { UndoResult } from '../../history/undo.js';
import { chargeWriteOrRefuse } from '../../platform/rate-limits.js';
import { csrfField, html, rowsOr, shortTime, type Html } from '../html.js';
import { takeFlash, writeFlash } from '../session.js';
import { flashNotice } from './notice.js';
import { attempt, field, ownerOf, ownerPage, ownerPost, type Owner } from './owner-request.js';

/**
 * Activity by run ("agent X changed 14 files, 3 minutes ago") with "Undo this run", which shows the dry run first,
 * and Snapshots (make, list, rewind to one, again after a preview). Issue 38; docs/decisions/runs.md.
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
      <strong>${r.actor_name ?? r.credential_kind ?? 'someone'}</strong> changed ${total} file${total === 1 ? '' : 's'},
      ${ago(r.ended_at)}
      <div class="muted">${parts.join(', ')} · run <code>${r.run_id}</code></div>
    </td>
    <td><a href="/activity/${encodeURIComponent(r.run_id)}/undo">Undo this run…</a></td>
  </tr>`;
}

/** The dry run as a table, and the form that does it for real. */
function preview(o: Owner, r: UndoResult, action: string, label: string): Html {
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
      ${csrfField(o.session.csrf)}
      ${
        conflicts
          ? html`<p class="error">${conflicts} change(s) were changed again later by someone else.</p>
              <label><input type="checkbox" name="force" value="1" /> Skip those and undo the rest</label>`
          : ''
      }
      <button type="submit">${label}</button>
    </form>`;
}

export function runsPagesRouter(ctx: AppContext): Router {
  const router = Router();
  const done = (res: Response, back: string, r: UndoResult) => {
    const n = r.changes.filter((c) => c.outcome === 'reverted').length;
    writeFlash(ctx.config, res, back, { notice: `Done: ${n} change(s) undone as run ${r.revert_run_id}.` });
    res.redirect(303, back);
  };

  router.get('/activity', async (req, res) => {
    const o = ownerOf(ctx, req, res);
    if (!o) return;
    const flash = takeFlash(ctx.config, req, res, '/activity');
    const { items } = await listRuns(o.rc, { limit: 50 });
    ownerPage(
      ctx,
      req,
      res,
      'Activity by run',
      html`${flashNotice(flash, o.session.csrf, '/activity')}
        <table data-testid="runs">
          <tbody>
            ${rowsOr(items.map(runLine), 2, 'No changes yet.')}
          </tbody>
        </table>`,
    );
  });

  router.get('/activity/:runId/undo', async (req, res) => {
    const o = ownerOf(ctx, req, res);
    if (!o) return;
    const runId = String(req.params.runId);
    await attempt(ctx, req, res, '/activity', async () => {
      const r = await revertRun(o.rc, runId, { dryRun: true, force: true });
      const action = `/activity/${encodeURIComponent(runId)}/undo`;
      ownerPage(ctx, req, res, `Undo run ${runId}`, preview(o, r, action, 'Undo this run'));
    });
  });

  router.post('/activity/:runId/undo', async (req, res) => {
    const o = ownerPost(ctx, req, res);
    if (!o) return;
    await attempt(ctx, req, res, '/activity', async () => {
      await chargeWriteOrRefuse(ctx, o.rc.principal);
      const r = await revertRun(o.rc, String(req.params.runId), { dryRun: false, force: !!field(req.body, 'force') });
      done(res, '/activity', r);
    });
  });

  router.get('/snapshots', async (req, res) => {
    const o = ownerOf(ctx, req, res);
    if (!o) return;
    const flash = takeFlash(ctx.config, req, res, '/snapshots');
    const rows = (await listSnapshots(o.rc)).map(
      (s) => html`<tr data-testid="snapshot">
        <td>${s.label}</td>
        <td class="muted">seq ${s.seq} · ${shortTime(s.created_at)}</td>
        <td><a href="/snapshots/${s.id}/rewind">Rewind to this…</a></td>
      </tr>`,
    );
    ownerPage(
      ctx,
      req,
      res,
      'Snapshots',
      html`${flashNotice(flash, o.session.csrf, '/snapshots')}
        <form method="post" action="/snapshots">
          ${csrfField(o.session.csrf)}
          <label for="snapshot-label">Name the drive as it is now</label>
          <input id="snapshot-label" name="label" required maxlength="200" />
          <button type="submit">Make a snapshot</button>
        </form>
        <table data-testid="snapshots">
          <tbody>
            ${rowsOr(rows, 3, 'No snapshots yet.')}
          </tbody>
        </table>`,
    );
  });

  router.post('/snapshots', async (req, res) => {
    const o = ownerPost(ctx, req, res);
    if (!o) return;
    await attempt(ctx, req, res, '/snapshots', async () => {
      const s = await createSnapshot(o.rc, field(req.body, 'label').slice(0, 200) || 'snapshot');
      writeFlash(ctx.config, res, '/snapshots', { notice: `Snapshot “${s.label}” made at seq ${s.seq}.` });
      res.redirect(303, '/snapshots');
    });
  });

  const rewindTo = (req: Request, o: Owner, dryRun: boolean) =>
    rewindDrive(o.rc, { toSnapshot: String(req.params.id), dryRun, force: dryRun || !!field(req.body, 'force') });

  router.get('/snapshots/:id/rewind', async (req, res) => {
    const o = ownerOf(ctx, req, res);
    if (!o) return;
    await attempt(ctx, req, res, '/snapshots', async () => {
      const r = await rewindTo(req, o, true);
      const action = `/snapshots/${encodeURIComponent(String(req.params.id))}/rewind`;
      ownerPage(ctx, req, res, 'Rewind the drive', preview(o, r, action, 'Rewind the drive'));
    });
  });

  router.post('/snapshots/:id/rewind', async (req, res) => {
    const o = ownerPost(ctx, req, res);
    if (!o) return;
    await attempt(ctx, req, res, '/snapshots', async () => {
      await chargeWriteOrRefuse(ctx, o.rc.principal);
      done(res, '/snapshots', await rewindTo(req, o, false));
    });
  });
  return router;
}
