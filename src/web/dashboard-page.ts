import { dashboardRead } from '../identity/dashboard-read.js';
import { activityLines } from './activity.js';
import { DROP_UPLOAD_PATH } from './assets.js';
import { humanSize, timeTag } from './format.js';
import { csrfField, html, type Html } from './html.js';
import { icon } from './icons.js';
import { show, type SignedInCall } from './kit/call.js';
import { page, type Declaration } from './kit/declare.js';
import { keysSection } from './owner/api-keys.js';
import { flashNotice } from './owner/notice.js';

/**
 * `/` and `/dashboard`: signed out, `/` says what this is and offers sign-in (the dashboard asks to sign in and comes
 * back); signed in, the dashboard: usage, recent activity (each entry a link to what it is about), and each owned
 * drive's API keys through the one key flow (src/web/owner/api-keys.ts).
 */
const pct = (used: number, limit: number) => (limit ? ` (${Math.round((100 * used) / limit)}%)` : '');

type Dashboard = Awaited<ReturnType<typeof dashboardRead>>;

function overview(drive: NonNullable<Dashboard['drive']>): Html {
  const { usage } = drive;
  const m = usage.thisMonth;
  const lines = activityLines(drive.id, drive.events);
  return html`<section data-testid="usage" aria-labelledby="usage-h">
      <h2 id="usage-h">Usage of ${drive.name ?? html`<code>${drive.id}</code>`}</h2>
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
      <ul class="activity">
        ${
          lines.length
            ? lines.map(
                (l) =>
                  html`<li>
                    <span class="what">${l.sentence}</span>
                    <span class="muted"
                      >${timeTag(l.event.created_at)}${l.event.actor_name ? ` · ${l.event.actor_name}` : ''}</span
                    >
                  </li>`,
              )
            : html`<li class="muted">Nothing yet. Files your agents upload appear here.</li>`
        }
      </ul>
      <p>
        <a class="button primary" href="/${drive.id}/">${icon('folder')} Browse files</a>
        <a class="button" href="/trash?drive=${drive.id}">${icon('trash')} Trash</a>
      </p>
    </section>`;
}

function dashboard(c: SignedInCall, read: Dashboard) {
  const { session } = c;
  const flash = c.flash();
  const sections = read.drives.map(
    ({ drive, keys }) =>
      html`<section aria-label="API keys of ${drive.id}">
        <h2>API keys of ${drive.name ? html`${drive.name} (<code>${drive.id}</code>)` : html`<code>${drive.id}</code>`}</h2>
        ${keysSection(
          session.csrf,
          drive.id,
          keys,
          '/dashboard',
          flash?.key_drive === drive.id ? flash.key : undefined,
          c.ctx.config.http.baseUrl,
        )}
      </section>`,
  );
  const unverified =
    read.account && !read.account.verified
      ? html`<section class="card" data-testid="email-unverified">
          <p>
            <strong>Confirm your email.</strong> We sent a link to ${read.account.email}. Until you follow it (signed
            in to this account), files shared with this address do not reach your drives.
          </p>
          <form method="post" action="/dashboard/verify-email">
            ${csrfField(session.csrf)}<button type="submit">Resend the link</button>
          </form>
        </section>`
      : '';
  return show(
    'Dashboard',
    html`<p>Signed in as <strong>${session.email}</strong>.</p>
      ${flashNotice(flash, session.csrf, '/dashboard')} ${unverified} ${read.drive ? overview(read.drive) : ''}
      ${read.drives.length ? sections : html`<p>You own no drives yet. Approve a claim from your agent to get one.</p>`}
      <h2>Sessions</h2>
      <form method="post" action="/auth/logout" class="inline">
        ${csrfField(session.csrf)}<button type="submit">Sign out</button>
      </form>
      <form method="post" action="/auth/logout-everywhere" class="inline">
        ${csrfField(session.csrf)} <button type="submit" class="danger">Sign out everywhere</button>
      </form>
      <p class="muted">Sign out everywhere ends every session of this account, in every browser.</p>`,
    200,
    { layout: 'app', script: DROP_UPLOAD_PATH },
  );
}

const LANDING = show(
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
  { layout: 'app' },
);

export const dashboardPages: Declaration[] = [
  // Signed in, `/` is the dashboard itself.
  page({ path: '/', who: 'anyone' }, async (c) => {
    const { session } = c;
    if (!session?.uid || !session.email) return LANDING;
    const signedIn = { ...c, session: { ...session, uid: session.uid, email: session.email } };
    return dashboard(signedIn, await dashboardRead(c.ctx, signedIn.session, String(c.req.id ?? '')));
  }),
  page({ path: '/dashboard', who: 'signed_in' }, async (c) =>
    dashboard(c, await dashboardRead(c.ctx, c.session, String(c.req.id ?? ''))),
  ),
];
