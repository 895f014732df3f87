import { mintOwnerApiKey, revokeOwnerApiKey } from '../../identity/accounts.js';
import { safeBack, timeTag } from '../format.js';
import { csrfField, html, type Html, rowsOr } from '../html.js';
import { confirmButton } from '../confirm.js';
import { copyable } from '../copy.js';
import { go, show, type SignedInCall } from '../kit/call.js';
import { form, type Declaration } from '../kit/declare.js';
import { DEFAULT_MEMORY_PREFIX } from '../../files/memory/memory-tree.js';
import { memoryPrefixSchema } from '../../shapes/memory-schemas.js';

/**
 * The one API-key flow of the web (the dashboard and the API keys page both show `keysSection` and post here): mint
 * (the key travels to the page in a one-time flash, POST → 303 → GET, so a reload mints nothing and shows nothing),
 * revoke. Each acts on a drive the signed-in account owns (`drive_id`), else 403.
 */
export interface KeyRow {
  id: string;
  prefix: string;
  label?: string | null;
  readOnly?: boolean;
  memoryPrefix?: string | null;
  createdAt: Date;
  revokedAt?: Date | null;
}

/** A new key, where the person minted it: the key with a Copy button, and ready lines for MCP and the CLI. */
function newKeyNotice(driveId: string, key: string, baseUrl: string): Html {
  const mcp = `claude mcp add --transport http agent-drive ${baseUrl}/mcp --header "Authorization: Bearer ${key}"`;
  const cli = `AGENT_DRIVE_API_KEY=${key} npx agent-drive login --api-key --url ${baseUrl}`;
  return html`<div class="notice" role="status" id="new-key" tabindex="-1">
    <p>New API key for <code>${driveId}</code>. Copy it now: it is shown only once.</p>
    ${copyable('new-api-key', key)}
    <p>Connect an MCP client (Claude Code):</p>
    ${copyable('snippet-mcp', mcp)}
    <p>Or sign the <code>agent-drive</code> CLI in with it:</p>
    ${copyable('snippet-cli', cli)}
  </div>`;
}

export function keysSection(
  csrf: string,
  driveId: string,
  keys: KeyRow[],
  back: string,
  newKey?: string,
  baseUrl = '',
): Html {
  const hidden = html`${csrfField(csrf)}<input type="hidden" name="drive_id" value="${driveId}" /><input
      type="hidden"
      name="back"
      value="${back}"
    />`;
  const rows = keys.map(
    (k) =>
      html`<tr>
        <td><code>${k.prefix}…</code></td>
        <td>${k.label ?? ''}</td>
        <td>${k.readOnly ? 'Read only' : 'Read and write'}</td>
        <td class="hide-narrow"><code>${k.memoryPrefix ?? DEFAULT_MEMORY_PREFIX}/</code></td>
        <td class="hide-narrow">${timeTag(k.createdAt)}</td>
        <td>
          ${
            k.revokedAt
              ? html`<span class="muted">revoked ${timeTag(k.revokedAt)}</span>`
              : confirmButton({
                  label: 'Revoke',
                  question: `Revoke ${k.prefix}…${k.label ? ` (${k.label})` : ''}? Agents using it lose access at once.`,
                  action: `/settings/api-keys/${k.id}/revoke`,
                  csrf,
                  confirm: 'Yes, revoke',
                  hidden: html`<input type="hidden" name="drive_id" value="${driveId}" /><input
                      type="hidden"
                      name="back"
                      value="${back}"
                    />`,
                  testId: `revoke-${k.prefix}`,
                })
          }
        </td>
      </tr>`,
  );
  return html`${newKey ? newKeyNotice(driveId, newKey, baseUrl) : ''}
    <div class="scroll">
      <table>
        <thead>
          <tr>
            <th>Key</th>
            <th>Label</th>
            <th>Access</th>
            <th class="hide-narrow">Memory folder</th>
            <th class="hide-narrow">Created</th>
            <th><span class="visually-hidden">Actions</span></th>
          </tr>
        </thead>
        <tbody>
          ${rowsOr(rows, 5, 'No keys yet.')}
        </tbody>
      </table>
    </div>
    <form method="post" action="/settings/api-keys" class="row">
      ${hidden}<label>Label <input type="text" name="label" maxlength="64" /></label>
      <fieldset>
        <legend>Access</legend>
        <label><input type="radio" name="access" value="read_write" checked /> Read and write</label>
        <label><input type="radio" name="access" value="read" /> Read only</label>
      </fieldset>
      <label
        >Memory folder
        <input type="text" name="memory_prefix" maxlength="200" placeholder="${DEFAULT_MEMORY_PREFIX}" />
      </label>
      <button type="submit" class="primary">Mint API key</button>
    </form>`;
}

const keyForm = (c: SignedInCall) => ({
  driveId: c.field('drive_id') || c.session.drv || '',
  back: safeBack(c.field('back'), '/settings/api-keys'),
});
const notOwner = () => show('Not your drive', html`<p class="error">You do not own that drive.</p>`, 403);

// The dashboard's former addresses answer with the same flow.
export const apiKeyForms: Declaration[] = [
  form({ path: ['/settings/api-keys', '/dashboard/keys'], who: 'signed_in', back: '/settings/api-keys' }, async (c) => {
    const { driveId, back } = keyForm(c);
    const label = c.field('label').trim().slice(0, 64) || null;
    const prefix = memoryPrefixSchema.optional().safeParse(c.field('memory_prefix').trim() || undefined);
    if (!prefix.success)
      return show('Memory folder', html`<p class="error">Memory folder: ${prefix.error.issues[0]?.message}.</p>`, 422);
    const access = { readOnly: c.field('access') === 'read', memoryPrefix: prefix.data ?? null };
    const minted = await mintOwnerApiKey(c.ctx, c.session.uid, driveId, label, access);
    if (!minted) return notOwner();
    // The page comes back scrolled to the new key (#new-key), where the person is.
    return go(`${back}#new-key`, { key: minted.key, key_drive: driveId });
  }),
  form(
    {
      path: ['/settings/api-keys/:keyId/revoke', '/dashboard/keys/:keyId/revoke'],
      who: 'signed_in',
      back: '/settings/api-keys',
    },
    async (c) => {
      const { driveId, back } = keyForm(c);
      const revoked = await revokeOwnerApiKey(c.ctx, c.session.uid, driveId, String(c.req.params.keyId));
      if (revoked === 'not_owner') return notOwner();
      if (revoked === 'no_such_key')
        return show('No such key', html`<p class="error">No such live key on that drive.</p>`, 404);
      return go(back);
    },
  ),
];
