import { Router, type Request, type Response } from 'express';
import type { AppContext } from '../platform/context.js';
import { mintOwnerApiKey, ownedDrivesWithKeys, revokeOwnerApiKey } from '../identity/accounts.js';
import { accountEmailState } from '../identity/email-verification.js';
import { listEvents } from '../files/events.js';
import { webRequestContext, webSessionPrincipal } from '../identity/web-principal.js';
import { driveUsage } from '../usage/usage.js';
import { loginUrl } from './auth-pages.js';
import { csrfField, html, sendPage, shortTime, type Html } from './html.js';
import { navFor } from './nav.js';
import { csrfValid, readSession, type Session } from './session.js';

const pct = (used: number, limit: number) => (limit ? ` (${Math.round((100 * used) / limit)}%)` : '');
const bytes = (n: number) => (n < 1024 * 1024 ? `${(n / 1024).toFixed(1)} KB` : `${(n / 1024 / 1024).toFixed(1)} MB`);

/** Usage against limits and recent activity (the event log) of the session's drive. */
async function overview(ctx: AppContext, session: Session, requestId: string): Promise<Html | ''> {
  if (!session.drv || !session.uid) return '';
  const rc = webRequestContext(ctx, webSessionPrincipal(session.drv, session.uid), requestId);
  const [usage, events] = await Promise.all([driveUsage(rc), listEvents(rc, { limit: 10 })]);
  const m = usage.thisMonth;
  return html`<section data-testid="usage">
      <h2>Usage</h2>
      <table>
        <tbody>
          <tr>
            <td>Storage</td>
            <td>
              ${bytes(usage.storage.used)} of
              ${bytes(usage.storage.limit)}${pct(usage.storage.used, usage.storage.limit)}
            </td>
          </tr>
          <tr>
            <td>Writes this hour</td>
            <td>${usage.writes.used} of ${usage.writes.limit}</td>
          </tr>
          <tr>
            <td>Reads this month</td>
            <td>${m.reads.used}${m.reads.limit ? ` of ${m.reads.limit}` : ''}</td>
          </tr>
          <tr>
            <td>Indexing operations this month</td>
            <td>${m.indexing_ops.used}</td>
          </tr>
          <tr>
            <td>Retrieval queries this month</td>
            <td>${m.retrieval_queries.used}</td>
          </tr>
        </tbody>
      </table>
    </section>
    <section data-testid="activity">
      <h2>Recent activity</h2>
      <table>
        <tbody>
          ${
            events.items.length
              ? events.items.map(
                  (e) =>
                    html`<tr>
                      <td class="muted">${shortTime(e.created_at)}</td>
                      <td>${e.action}</td>
                      <td>${typeof e.metadata?.path === 'string' ? e.metadata.path : (e.art_id ?? '')}</td>
                      <td class="muted">${e.actor_name ?? ''}</td>
                    </tr>`,
                )
              : html`<tr>
                  <td class="muted">Nothing yet.</td>
                </tr>`
          }
        </tbody>
      </table>
      <p><a href="/${session.drv}/">Browse files</a> · <a href="/trash">Trash</a></p>
    </section>`;
}

/**
 * The owner's dashboard: usage, recent activity, the drives this account claimed and each drive's API keys (mint shows
 * a key once; revoke).
 */
async function render(ctx: AppContext, res: Response, session: Session, notice?: Html, status = 200, req?: Request) {
  const drives = await ownedDrivesWithKeys(ctx, session.uid!);
  const sections = drives.map(({ drive, keys }) => {
    const rows = keys.map(
      (k) =>
        html`<tr>
          <td><code>${k.prefix}…</code></td>
          <td>${k.label ?? ''}</td>
          <td>${k.createdAt.toISOString()}</td>
          <td>
            ${
              k.revokedAt
                ? html`revoked ${k.revokedAt.toISOString()}`
                : html` <form method="post" action="/dashboard/keys/${k.id}/revoke">
                    ${csrfField(session.csrf)} <input type="hidden" name="drive_id" value="${drive.id}" /><button
                      type="submit"
                    >
                      Revoke
                    </button>
                  </form>`
            }
          </td>
        </tr>`,
    );
    return html`<section>
      <h2>Drive <code>${drive.id}</code></h2>
      <table>
        <thead>
          <tr>
            <th>Key</th>
            <th>Label</th>
            <th>Created</th>
            <th></th>
          </tr>
        </thead>
        <tbody>
          ${rows}
        </tbody>
      </table>
      <form method="post" action="/dashboard/keys">
        ${csrfField(session.csrf)}
        <input type="hidden" name="drive_id" value="${drive.id}" />
        <label>Label <input type="text" name="label" maxlength="64" /></label>
        <button type="submit">Mint API key</button>
      </form>
    </section>`;
  });
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
    html` <p>Signed in as <strong>${session.email}</strong>.</p>
      ${unverified} ${notice ?? ''} ${await overview(ctx, session, String(req?.id ?? ''))}
      ${drives.length ? sections : html`<p>You own no drives yet. Approve a claim from your agent to get one.</p>`}
      <form method="post" action="/auth/logout" class="inline">
        ${csrfField(session.csrf)}<button type="submit">Sign out</button>
      </form>
      <form method="post" action="/auth/logout-everywhere" class="inline">
        ${csrfField(session.csrf)} <button type="submit" class="danger">Sign out everywhere</button>
      </form>
      <p class="muted">Sign out everywhere ends every session of this account, in every browser.</p>`,
    status,
    req ? { wide: true, nav: navFor(ctx.config, req) } : {},
  );
}

/** The signed-in session of a CSRF-checked form post and the drive it names, or a response already sent. */
async function authorisedPost(
  ctx: AppContext,
  req: Request,
  res: Response,
): Promise<{ session: Session & { uid: string }; driveId: string } | undefined> {
  const session = readSession(req);
  if (!session?.uid || !session.email) {
    res.redirect(303, loginUrl('/dashboard'));
    return undefined;
  }
  if (!csrfValid(session, req.body?.csrf)) {
    await render(ctx, res, session, html`<p class="error">Your form expired. Try again.</p>`, 403);
    return undefined;
  }
  const driveId = typeof req.body?.drive_id === 'string' ? req.body.drive_id : '';
  return { session: { ...session, uid: session.uid }, driveId };
}

const notOwner = (ctx: AppContext, res: Response, session: Session) =>
  render(ctx, res, session, html`<p class="error">You do not own that drive.</p>`, 403);

export function dashboardRouter(ctx: AppContext): Router {
  const router = Router();

  router.get('/dashboard', async (req, res) => {
    const session = readSession(req);
    if (!session?.uid || !session.email) return res.redirect(303, loginUrl('/dashboard'));
    await render(ctx, res, session, undefined, 200, req);
  });

  router.post('/dashboard/keys', async (req, res) => {
    const ok = await authorisedPost(ctx, req, res);
    if (!ok) return;
    const label =
      typeof req.body?.label === 'string' && req.body.label.trim() ? req.body.label.trim().slice(0, 64) : null;
    const minted = await mintOwnerApiKey(ctx, ok.session.uid, ok.driveId, label);
    if (!minted) return notOwner(ctx, res, ok.session);
    await render(
      ctx,
      res,
      ok.session,
      html`<div class="ok" role="status">
        <p>New API key for <code>${ok.driveId}</code>. Copy it now: it is shown only once.</p>
        <p class="secret" data-testid="new-api-key">${minted.key}</p>
      </div>`,
      201,
    );
  });

  router.post('/dashboard/keys/:keyId/revoke', async (req, res) => {
    const ok = await authorisedPost(ctx, req, res);
    if (!ok) return;
    const revoked = await revokeOwnerApiKey(ctx, ok.session.uid, ok.driveId, String(req.params.keyId));
    if (revoked === 'not_owner') return notOwner(ctx, res, ok.session);
    if (revoked === 'no_such_key')
      return render(ctx, res, ok.session, html`<p class="error">No such live key on that drive.</p>`, 404);
    res.redirect(303, '/dashboard');
  });

  return router;
}
