import type { SharingState } from '../../sharing/sharing-state.js';
import { SHARE_LABEL_MAX, SHARE_ROLES } from '../../sharing/shares.js';
import { humanTime } from '../format.js';
import { csrfField, html, type Html } from '../html.js';
import { icon } from '../icons.js';
import { copyable } from '../copy.js';
import type { ShareRow } from '../../sharing/shares.js';

const ROLE_LABEL: Record<string, string> = { viewer: 'View', commenter: 'Comment', editor: 'Edit' };

/** Who made a link: the owner on these pages (`web:` credentials), an API key or an agent. */
function creatorOf(s: Pick<ShareRow, 'created_by_type' | 'created_by_id'>): string {
  if (s.created_by_id.startsWith('web:')) return 'you, here';
  if (s.created_by_type === 'api_key') return `API key ${s.created_by_id.slice(0, 12)}…`;
  return `an agent (${s.created_by_id.slice(0, 12)}…)`;
}

/**
 * The Share control of a file or folder page: a disclosure (no script) holding the public switch, links (expiry,
 * optional password and label; a new link shown once) and people by email, each a CSRF-checked form of the sharing
 * page's actions (src/web/owner/sharing-page.ts) that comes back to this page.
 */
export const LINK_EXPIRIES: [string, string][] = [
  ['', 'Never'],
  ['3600', '1 hour'],
  ['86400', '1 day'],
  ['604800', '7 days'],
  ['2592000', '30 days'],
];

export function sharePanel(
  csrf: string,
  resource: string,
  back: string,
  state: SharingState,
  newLink?: string,
  open = false,
): Html {
  const hidden = html`${csrfField(csrf)}<input type="hidden" name="resource" value="${resource}" /><input
      type="hidden"
      name="back"
      value="${back}"
    />`;
  const people = state.people.map(
    (g) =>
      html`<li>
        ${g.principal_email ?? g.principal_id ?? g.principal_type} · ${g.role}
        <form class="inline" method="post" action="/settings/sharing/grants/${g.id}/revoke">
          ${hidden}<button type="submit" class="link">Remove</button>
        </form>
      </li>`,
  );
  const links = state.links.map(
    (s) =>
      html`<li data-testid="share-row">
        <strong data-testid="share-label">${s.label ?? `${ROLE_LABEL[s.role] ?? s.role} link`}</strong>
        <span class="muted">
          ${s.label ? `· ${ROLE_LABEL[s.role] ?? s.role}` : ''}
          · made ${humanTime(s.created_at)} by ${creatorOf(s)}${s.password_hash ? ' · password' : ''}${
            s.expires_at ? ` · expires ${humanTime(s.expires_at)}` : ' · never expires'
          }
          · opened ${Number(s.access_count)}×</span
        >
        <form class="inline" method="post" action="/settings/sharing/shares/${s.id}/rotate">
          ${hidden}<button type="submit" class="link">Rotate</button>
        </form>
        <form class="inline" method="post" action="/settings/sharing/shares/${s.id}/revoke">
          ${hidden}<button type="submit" class="link">Revoke</button>
        </form>
      </li>`,
  );
  const visibility = state.isPublic ? 'Public' : 'Private';
  return html`<details class="share" id="share" data-testid="share-control" ${open ? html`open` : ''}>
    <summary>${icon('share')} Share <span class="muted" data-testid="share-visibility">· ${visibility}</span></summary>
    <div class="panel">
      ${
        newLink
          ? html`<div class="notice" role="status">
              <p>New link, shown once: copy it now.</p>
              ${copyable('new-share-link', newLink)}
            </div>`
          : ''
      }
      <h3 data-testid="visibility-heading">${icon(state.isPublic ? 'globe' : 'lock')} ${visibility}</h3>
      <form method="post" action="/settings/sharing/public">
        ${hidden}<input type="hidden" name="public" value="${state.isPublic ? 'off' : 'on'}" />
        <p data-testid="public-state">
          ${
            state.isPublic
              ? 'Anyone with the address can see the current version.'
              : 'Only you and the people below can see this.'
          }
        </p>
        <button type="submit">${state.isPublic ? 'Make private' : 'Make public'}</button>
      </form>
      <h3>${icon('share')} Links</h3>
      ${
        links.length
          ? html`<ul>
              ${links}
            </ul>`
          : html`<p class="muted">No links.</p>`
      }
      <form method="post" action="/settings/sharing/shares">
        ${hidden}
        <label
          >Access
          <select name="role">
            ${SHARE_ROLES.map((r) => html`<option>${r}</option>`)}
          </select></label
        >
        <label
          >Expires
          <select name="expires_in">
            ${LINK_EXPIRIES.map(([v, l]) => html`<option value="${v}">${l}</option>`)}
          </select></label
        >
        <label>Password (optional) <input type="password" name="password" autocomplete="new-password" /></label>
        <label
          >Label (optional)
          <input type="text" name="label" maxlength="${SHARE_LABEL_MAX}" placeholder="e.g. for the reviewers" />
        </label>
        <button type="submit" class="primary">Create link</button>
      </form>
      <h3>${icon('users')} People</h3>
      ${
        people.length
          ? html`<ul>
              ${people}
            </ul>`
          : html`<p class="muted">Not shared with anyone.</p>`
      }
      <form method="post" action="/settings/sharing/grants">
        ${hidden}<label>Email <input type="email" name="email" required /></label>
        <label
          >Role
          <select name="role">
            ${['viewer', 'commenter', 'editor', 'manager'].map((r) => html`<option>${r}</option>`)}
          </select></label
        >
        <button type="submit">Share</button>
        <p class="muted">It reaches them once they sign in with this email, verified.</p>
      </form>
    </div>
  </details>`;
}
