import { decideClaimCode } from '../identity/accounts.js';
import { claimRead } from '../identity/claim-read.js';
import { dayOf, driveContents } from './format.js';
import type { PersonDrive } from '../drives/person-drives.js';
import { driveLabel, lastWriteOf } from './nav.js';
import { normaliseUserCode, USER_CODE_RE } from '../identity/claims.js';
import { csrfField, html } from './html.js';
import { go, show, type SignedInCall } from './kit/call.js';
import { form, page, type Declaration } from './kit/declare.js';
import { writeSession } from './session.js';

/**
 * The verification page of the claim ceremony (`verification_uri[_complete]`). A signed-in
 * human sees the code the agent showed them and approves or declines; the decision goes to the
 * ceremony workflow as one update.
 */
const TITLE = 'Claim an agent drive';

/** "in 9 minutes" until the code expires. */
function timeLeft(expiresAt: Date): string {
  const min = Math.max(1, Math.round((expiresAt.getTime() - Date.now()) / 60_000));
  return min === 1 ? 'in about a minute' : `in ${min} minutes`;
}

const AFTER_APPROVAL = html`<h2>Your agents after the claim</h2>
  <ul>
    <li>
      <strong>Pick up new credentials by themselves:</strong> the <code>agent-drive</code> CLI and SDK, and any agent
      that stored its claim token (it asks the token endpoint with <code>grant_type=claim</code>).
    </li>
    <li>
      <strong>Need one step:</strong> an MCP client configured with the old identity assertion in a header (it now gets
      401). Reconnect it with sign-in: <code>agent-drive mcp --client claude-code</code> prints the line (no secret;
      the client opens this site to sign in), or mint it an API key with <code>agent-drive mcp --api-key</code> or on
      the dashboard.
    </li>
  </ul>
  <p><a href="/dashboard">Go to the dashboard</a> to mint API keys.</p>`;

/**
 * Which drive approving adds (the agent's own, by id) and the drives the person has already: approving adds a drive
 * beside them; to have the agent write to one of those instead, decline and give it an API key of that drive.
 */
function ownedNow(driveId: string, owned: PersonDrive[]) {
  const adds = html`<p data-testid="claim-adds">Approving adds the drive <code>${driveId}</code> to your account.</p>`;
  if (!owned.length) return adds;
  return html`${adds}
    <div data-testid="claim-existing">
      <p>You already own ${owned.length === 1 ? 'a drive' : `${owned.length} drives`}; they stay as they are:</p>
      <ul>
        ${owned.map(
          (d) =>
            html`<li>
              <a href="/${d.id}/">${driveLabel(d)}</a>${d.name ? html` (<code>${d.id}</code>)` : ''}
              <span class="muted">${d.claimedAt ? `claimed ${dayOf(d.claimedAt)}` : ''} · ${lastWriteOf(d)}</span>
              · <a href="/settings/api-keys?drive=${d.id}">give your agent a key to this drive instead</a>
            </li>`,
        )}
      </ul>
      <p class="muted">
        To keep one drive, decline and use a key of an existing drive; <code>agent-drive login</code> also offers them.
      </p>
    </div>`;
}

/** The decision just made (POST → 303 → GET): shown once; a reload shows the form, never decides again. */
function decided(c: SignedInCall) {
  const flash = c.flash();
  if (flash?.claim === 'approved')
    return show(
      'Drive claimed',
      html`<p class="ok" role="status">Approved. Drive <code>${flash.drive}</code> is now yours and permanent.</p>
        ${AFTER_APPROVAL}`,
    );
  if (flash?.claim === 'declined')
    return show('Claim declined', html`<p class="ok" role="status">Declined. The agent's drive stays unclaimed.</p>`);
  return show(
    TITLE,
    html` <p>Enter the code your agent showed you.</p>
      <form method="get" action="/claim">
        <label>Code <input type="text" name="code" required maxlength="32" autocomplete="off" /></label>
        <button type="submit" class="primary">Continue</button>
      </form>`,
  );
}

export const claimPages: Declaration[] = [
  page({ path: '/claim', who: 'signed_in' }, async (c) => {
    const rawCode = c.query('code').slice(0, 32);
    if (!rawCode) return decided(c);
    const code = normaliseUserCode(rawCode);
    // Guessing codes is throttled per IP and per account (429 with Retry-After, rendered by the pages' error handler).
    const pending = await claimRead(c.ctx, code, c.req.ip ?? 'unknown', c.session.uid);
    if (!pending)
      return show(
        TITLE,
        html` <p class="error">This code is unknown, expired or already used. Ask your agent to start a new claim.</p>`,
        404,
      );
    return show(
      TITLE,
      html`<p data-testid="claim-why">
          An AI agent made a drive to keep its files in, and asked you to claim it: you become its owner, and the drive
          stops expiring.
        </p>
        <p data-testid="claim-drive">
          ${pending.files ? html`The drive holds ${driveContents(pending)}.` : 'The drive is empty so far.'}
        </p>
        ${ownedNow(pending.driveId, pending.owned)}
        <p>Check that this code matches the one your agent showed you:</p>
        <p class="code" data-testid="user-code">${code}</p>
        <p>
          Approving makes the drive permanent and owned by <strong>${c.session.email}</strong>. The code expires
          <span data-testid="claim-time-left">${timeLeft(pending.attempt.expiresAt)}</span>.
        </p>
        ${
          c.session.verified
            ? ''
            : html`<p class="muted">
                Your email is not confirmed yet: files shared with it reach this drive once you follow the link we
                mailed you.
              </p>`
        }
        <form method="post" action="/claim" class="decide">
          ${csrfField(c.session.csrf)}
          <input type="hidden" name="code" value="${code}" />
          <button type="submit" name="decision" value="approve" class="primary">Approve</button>
          <button type="submit" name="decision" value="decline" class="danger">Decline</button>
        </form>`,
    );
  }),

  form({ path: '/claim', who: 'signed_in', back: '/claim' }, async (c) => {
    const decision = c.field('decision');
    const code = normaliseUserCode(c.field('code').slice(0, 32));
    if ((decision !== 'approve' && decision !== 'decline') || !USER_CODE_RE.test(code))
      return show(TITLE, html`<p class="error">Choose approve or decline.</p>`, 400);
    const { session } = c;
    const { result, driveId } = await decideClaimCode(
      c.ctx,
      code,
      decision,
      { id: session.uid, email: session.email },
      c.req.ip ?? 'unknown',
    );
    if (result !== 'approved' && result !== 'declined')
      return show(
        TITLE,
        html`<p class="error">This code has expired or was already used. Ask your agent to start a new claim.</p>`,
        410,
      );
    if (result === 'approved')
      writeSession(c.ctx.config, c.req, c.res, {
        uid: session.uid,
        email: session.email,
        drv: driveId,
        sid: session.sid,
      });
    return go('/claim', { claim: result, drive: driveId ?? '' });
  }),
];
