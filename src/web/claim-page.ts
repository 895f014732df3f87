import { Router } from 'express';
import type { AppContext } from '../platform/context.js';
import { decideClaimCode, lookupClaimCode } from '../identity/accounts.js';
import { normaliseUserCode, USER_CODE_RE } from '../identity/claims.js';
import { loginUrl } from './auth-pages.js';
import { csrfField, html, sendPage } from './html.js';
import { csrfValid, readSession, takeFlash, writeFlash, writeSession } from './session.js';

/**
 * The verification page of the claim ceremony (`verification_uri[_complete]`). A signed-in
 * human sees the code the agent showed them and approves or declines; the decision goes to the
 * ceremony workflow as one update.
 */
export function claimPageRouter(ctx: AppContext): Router {
  const router = Router();

  router.get('/claim', async (req, res) => {
    const rawCode = typeof req.query.code === 'string' ? req.query.code.slice(0, 32) : '';
    const session = readSession(req);
    if (!session?.uid)
      return res.redirect(303, loginUrl(rawCode ? `/claim?code=${encodeURIComponent(rawCode)}` : '/claim'));

    if (!rawCode) {
      // The decision just made (POST → 303 → GET): shown once; a reload shows the form, never decides again.
      const flash = takeFlash(ctx.config, req, res, '/claim');
      if (flash?.claim === 'approved')
        return sendPage(
          res,
          'Drive claimed',
          html` <p class="ok" role="status">
              Approved. Drive <code>${flash.drive}</code> is now yours and permanent.
            </p>
            <h2>Your agents after the claim</h2>
            <ul>
              <li>
                <strong>Pick up new credentials by themselves:</strong> the <code>agent-drive</code> CLI and SDK, and
                any agent that stored its claim token (it asks the token endpoint with <code>grant_type=claim</code>).
              </li>
              <li>
                <strong>Need one step:</strong> an MCP client configured with the old identity assertion in a header
                (it now gets 401). Reconnect it with sign-in: <code>agent-drive mcp --client claude-code</code> prints
                the line (no secret; the client opens this site to sign in), or mint it an API key with
                <code>agent-drive mcp --api-key</code> or on the dashboard.
              </li>
            </ul>
            <p><a href="/dashboard">Go to the dashboard</a> to mint API keys.</p>`,
        );
      if (flash?.claim === 'declined')
        return sendPage(
          res,
          'Claim declined',
          html`<p class="ok" role="status">Declined. The agent's drive stays unclaimed.</p>`,
        );
      return sendPage(
        res,
        'Claim an agent drive',
        html` <p>Enter the code your agent showed you.</p>
          <form method="get" action="/claim">
            <label>Code <input type="text" name="code" required maxlength="32" autocomplete="off" /></label>
            <button type="submit">Continue</button>
          </form>`,
      );
    }
    const code = normaliseUserCode(rawCode);
    // Guessing codes is throttled per IP and per account (429 with Retry-After, rendered by the pages' error handler).
    const pending = await lookupClaimCode(ctx, code, req.ip ?? 'unknown', session.uid);
    if (!pending) {
      return sendPage(
        res,
        'Claim an agent drive',
        html` <p class="error">This code is unknown, expired or already used. Ask your agent to start a new claim.</p>`,
        404,
      );
    }
    sendPage(
      res,
      'Claim an agent drive',
      html` <p>Your agent asked you to claim its drive. Check that this code matches the one your agent showed you:</p>
        <p class="code" data-testid="user-code">${code}</p>
        <p>
          Drive <code>${pending.driveId}</code>. Approving makes the drive permanent and owned by
          <strong>${session.email}</strong>. The code expires at ${pending.attempt.expiresAt.toISOString()}.
        </p>
        ${session.verified ? '' : html`<p class="muted">Your email is not confirmed yet: files shared with it reach this drive once you follow the link we mailed you.</p>`}
        <form method="post" action="/claim">
          ${csrfField(session.csrf)}
          <input type="hidden" name="code" value="${code}" />
          <button type="submit" name="decision" value="approve">Approve</button>
          <button type="submit" name="decision" value="decline">Decline</button>
        </form>`,
    );
  });

  router.post('/claim', async (req, res) => {
    const session = readSession(req);
    if (!session?.uid || !session.email) return res.redirect(303, loginUrl('/claim'));
    if (!csrfValid(session, req.body?.csrf))
      return sendPage(
        res,
        'Claim an agent drive',
        html`<p class="error">Your form expired. Reload the page and try again.</p>`,
        403,
      );
    const decision = req.body?.decision;
    const code = typeof req.body?.code === 'string' ? normaliseUserCode(req.body.code.slice(0, 32)) : '';
    if ((decision !== 'approve' && decision !== 'decline') || !USER_CODE_RE.test(code)) {
      return sendPage(res, 'Claim an agent drive', html`<p class="error">Choose approve or decline.</p>`, 400);
    }
    const { result, driveId } = await decideClaimCode(
      ctx,
      code,
      decision,
      { id: session.uid, email: session.email },
      req.ip ?? 'unknown',
    );
    if (result === 'approved' || result === 'declined') {
      if (result === 'approved')
        writeSession(ctx.config, req, res, { uid: session.uid, email: session.email, drv: driveId, sid: session.sid });
      writeFlash(ctx.config, res, '/claim', { claim: result, drive: driveId ?? '' });
      return res.redirect(303, '/claim');
    }
    sendPage(
      res,
      'Claim an agent drive',
      html`<p class="error">This code has expired or was already used. Ask your agent to start a new claim.</p>`,
      410,
    );
  });

  return router;
}
