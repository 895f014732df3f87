import { Router, type Request, type Response } from 'express';
import type { AppContext } from '../platform/context.js';
import { ownedDrivesWithKeys } from '../identity/accounts.js';
import { accountEmailState } from '../identity/email-verification.js';
import { listEvents, type EventRow } from '../files/events.js';
import { webRequestContext, webSessionPrincipal } from '../identity/web-principal.js';
import { driveUsage } from '../usage/usage.js';
import { loginUrl } from './auth-pages.js';
import { encodePath, humanSize, timeTag } from './format.js';
import { csrfField, html, sendPage, type Html } from './html.js';
import { icon } from './icons.js';
import { navFor } from './nav.js';
import { keysSection } from './owner/api-keys.js';
import { flashNotice } from './owner/notice.js';
import { readSession, takeFlash, type Session } from './session.js';

/**
 * `/` and `/dashboard`: signed out, `/` says what this is and offers sign-in (the dashboard asks to sign in and comes
 * back); signed in, the dashboard: usage, recent activity (each entry a link to what it is about), and each owned
 * drive's API keys through the one key flow (src/web/owner/api-keys.ts).
 */
const pct = (used: number, limit: number) => (limit ? ` (${Math.round((100 * used) / limit)}%)` : '');

/** Where an event points: the file or folder it is about (its path at that time), the trash for a deletion. */
function eventLink(driveId: string, e: EventRow): Html | string {
  const path = typeof e.metadata?.to === 'string' ? e.metadata.to : e.metadata?.path;
  if (typeof path !== 'string') {
    // Sharing events name the artifact or folder by id: its permalink leads to it wherever it is now.
    if (e.art_id) return html`<a href="/a/${e.art_id}">${e.art_id}</a>`;
    return e.fld_id ? html`<a href="/f/${e.fld_id}">${e.fld_id}</a>` : '';
  }
  const label = path;
  if (e.action.endsWith('.deleted')) return html`<a href="/trash">${label}</a>`;
  const href = e.fld_id && !e.art_id ? `/${driveId}/${encodePath(path)}/` : `/${driveId}/${encodePath(path)}`;
  return html`<a href="${href}">${label}</a>`;
}

const ACTIONS: Record<string, string> = {
  'artifact.created': 'Created',
  'artifact.updated': 'Updated',
  'artifact.renamed': 'Renamed',
  'artifact.deleted': 'Deleted',
  'artifact.restored': 'Restored',
  'folder.created': 'New folder',
  'grant.created': 'Shared',
  'grant.revoked': 'Unshared',
  'share.created': 'Link created',
  'share.revoked': 'Link revoked',
};

async function overview(ctx: AppContext, session: Session, requestId: string): Promise<Html | ''> {
  if (!session.drv || !session.uid) return '';
  const rc = webRequestContext(ctx, webSessionPrincipal(session.drv, session.uid), requestId);
  const [usage, events] = await Promise.all([driveUsage(rc), listEvents(rc, { limit: 10 })]);
  const m = usage.thisMonth;
  const drv = session.drv;
  return html`<section data-testid="usage" aria-labelledby="usage-h">
      <h2 id="usage-h">Usage</h2>
      <div class="grid">
        <div class="card stat">
          Storage <strong>${humanSize(usage.storage.used)}</strong>
          <span class="muted">of ${humanSize(usage.storage.limit)}${pct(usage.storage.used, usage.storage.limit)}</span>
        </div>
        <div class="card stat">
          Writes this hour <strong>${usage.writes.used}</strong><span class="muted">of ${usage.writes.limit}</span>
        </div>
        <div class="card stat">
          Reads this month <strong>${m.reads.used}</strong
          ><span class="muted">${m.reads.limit ? `of ${m.reads.limit}` : 'no limit'}</span>
        </div>
        <div class="card stat">
          Searches this month <strong>${m.retrieval_queries.used}</strong
          ><span class="muted">${m.indexing_ops.used} indexing operations</span>
        </div>
      </div>
    </section>
    <section data-testid="activity" aria-labelledby="activity-h">
      <h2 id="activity-h">Recent activity</h2>
      <div class="scroll">
        <table>
          <tbody>
            ${
              events.items.length
                ? events.items.map(
                    (e) =>
                      html`<tr>
                        <td class="muted">${timeTag(e.created_at)}</td>
                        <td>${ACTIONS[e.action] ?? e.action} <span class="visually-hidden">${e.action}</span></td>
                        <td>${eventLink(drv, e)}</td>
                        <td class="muted hide-narrow">${e.actor_name ?? ''}</td>
                      </tr>`,
                  )
                : html`<tr>
                    <td class="muted">Nothing yet. Files your agents upload appear here.</td>
                  </tr>`
            }
          </tbody>
        </table>
      </div>
      <p>
        <a class="button primary" href="/${drv}/">${icon('folder')} Browse files</a>
        <a class="button" href="/trash">${icon('trash')} Trash</a>
      </p>
    </section>`;
}

async function render(ctx: AppContext, req: Request, res: Response, session: Session) {
  const flash = takeFlash(ctx.config, req, res, '/dashboard');
  const drives = await ownedDrivesWithKeys(ctx, session.uid!);
  const sections = drives.map(
    ({ drive, keys }) =>
      html`<section aria-label="API keys of ${drive.id}">
        <h2>API keys of <code>${drive.id}</code></h2>
        ${keysSection(session.csrf, drive.id, keys, '/dashboard', flash?.key_drive === drive.id ? flash.key : undefined)}
      </section>`,
  );
  const account = await accountEmailState(ctx, session.uid!);
  const unverified =
    account && !account.verified
      ? html`<section class="card" data-testid="email-unverified">
          <p>
            <strong>Confirm your email.</strong> We sent a link to ${account.email}. Until you follow it (signed in to
            this account), files shared with this address do not reach your drives.
          </p>
          <form method="post" action="/dashboard/verify-email">
            ${csrfField(session.csrf)}<button type="submit">Resend the link</button>
          </form>
        </section>`
      : '';
  sendPage(
    res,
    'Dashboard',
    html`<p>Signed in as <strong>${session.email}</strong>.</p>
      ${flashNotice(flash, session.csrf, '/dashboard')} ${unverified}
      ${await overview(ctx, session, String(req.id ?? ''))}
      ${drives.length ? sections : html`<p>You own no drives yet. Approve a claim from your agent to get one.</p>`}
      <h2>Sessions</h2>
      <form method="post" action="/auth/logout" class="inline">
        ${csrfField(session.csrf)}<button type="submit">Sign out</button>
      </form>
      <form method="post" action="/auth/logout-everywhere" class="inline">
        ${csrfField(session.csrf)} <button type="submit" class="danger">Sign out everywhere</button>
      </form>
      <p class="muted">Sign out everywhere ends every session of this account, in every browser.</p>`,
    200,
    { wide: true, nav: navFor(ctx.config, req) },
  );
}

function landing(ctx: AppContext, req: Request, res: Response) {
  sendPage(
    res,
    'A drive for your agents, readable by you',
    html`<section class="hero">
        <p>
          Agent Artifact Drive stores the files your AI agents make: reports, notes, data, code. Agents write through a
          REST API and MCP; you browse, read, search and share them here.
        </p>
        <p>
          <a class="button primary" href="/auth/login?return_to=%2Fdashboard">Sign in</a>
          <a class="button" href="/auth/signup?return_to=%2Fdashboard">Create an account</a>
        </p>
      </section>
      <div class="grid">
        <div class="card">
          <h2>${icon('folder')} Every file in its folder</h2>
          <p>Browse what your agents wrote, with versions and a diff between them.</p>
        </div>
        <div class="card">
          <h2>${icon('search')} Find by what is in it</h2>
          <p>Full-text search and passages, linked to their place.</p>
        </div>
        <div class="card">
          <h2>${icon('share')} Share with care</h2>
          <p>Links with expiry and password, people by email, or public.</p>
        </div>
      </div>`,
    200,
    { wide: true, nav: navFor(ctx.config, req) },
  );
}

export function dashboardRouter(ctx: AppContext): Router {
  const router = Router();
  router.get('/', async (req, res) => {
    const session = readSession(req);
    if (!session?.uid || !session.email) return landing(ctx, req, res);
    await render(ctx, req, res, session);
  });
  router.get('/dashboard', async (req, res) => {
    const session = readSession(req);
    if (!session?.uid || !session.email) return res.redirect(303, loginUrl('/dashboard'));
    await render(ctx, req, res, session);
  });
  return router;
}
