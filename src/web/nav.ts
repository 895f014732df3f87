import type { Request } from 'express';
import type { Config } from '../lib/config.js';
import type { PersonDrive } from '../drives/person-drives.js';
import { dayOf, timeTag } from './format.js';
import { html, type Html } from './html.js';
import { icon } from './icons.js';
import { readSession, type Session } from './session.js';

/**
 * The bar above every viewer and owner page: signed in, the drive switcher (every drive of the person, issue 55), the
 * owner's places of the drive on screen and a search box over it (a GET form, so it works with scripts off); signed
 * out, a sign-in link that returns here.
 */
export function navFor(_config: Config, req: Request): Html {
  let session: Session | undefined;
  try {
    session = readSession(req);
  } catch {
    session = undefined;
  }
  const brand = html`<a class="brand" href="/">${icon('drive')} Agent Artifact Drive</a>`;
  if (!session?.uid)
    return html`<header class="top">
      <div class="bar">
        ${brand}
        <nav aria-label="Account">
          <a href="/auth/login?return_to=${encodeURIComponent(req.originalUrl)}">Sign in</a>
        </nav>
      </div>
    </header>`;
  const drives = session.drives ?? [];
  const drive = drives.find((d) => d.id === onScreen(req)) ?? drives.find((d) => d.id === session.drv) ?? drives[0];
  const q = typeof req.query.q === 'string' && req.path === '/search' ? req.query.q : '';
  // The owner's places name the drive they are of, so each tab stays on its drive.
  const of = drive ? `?drive=${encodeURIComponent(drive.id)}` : '';
  return html`<header class="top">
    <div class="bar">
      ${brand}${drive ? switcher(drives, drive) : ''}
      <nav aria-label="Main">
        <a href="/dashboard">Dashboard</a
        >${
          drive
            ? html`<a href="/${drive.id}/">Files</a><a href="/activity${of}">Runs</a
              ><a href="/snapshots${of}">Snapshots</a><a href="/trash${of}">Trash</a>`
            : ''
        }<a href="/settings/api-keys${of}"
          >API keys</a
        ><a href="/settings${of}">Settings</a>
      </nav>
      ${
        drive
          ? html`<form class="search" method="get" action="/search" role="search">
              <label for="top-search" class="visually-hidden">Search your drive</label>
              <input
                id="top-search"
                type="search"
                name="q"
                value="${q}"
                placeholder="Search ${driveLabel(drive)}"
                maxlength="200"
              /><input type="hidden" name="drive" value="${drive.id}" />
              <button type="submit" aria-label="Search">${icon('search')}</button>
            </form>`
          : ''
      }
    </div>
  </header>`;
}

/** The drive this URL is of: the viewer's `/{drive_id}/…`, or an owner page's `?drive=`. */
function onScreen(req: Request): string | undefined {
  const fromPath = /^\/(drv_[\w-]+)(\/|$)/.exec(req.path)?.[1];
  return fromPath ?? (typeof req.query.drive === 'string' ? req.query.drive : undefined);
}

/** A drive as people know it: its name, else its id. */
export const driveLabel = (d: { id: string; name: string | null }) => d.name ?? d.id;

const CREDENTIAL_WORDS: Record<string, string> = {
  mcp_oauth: 'an MCP app',
  api_key: 'an API key',
  access_token: 'an agent',
  web_session: 'the web',
  system: 'the service',
};

/** What wrote to a drive last: "notes-bot (an API key), 5 min ago", or "nothing yet". */
export function lastWriteOf(d: PersonDrive): Html {
  const w = d.lastWrite;
  if (!w) return html`nothing written yet`;
  const how = w.credentialKind ? (CREDENTIAL_WORDS[w.credentialKind] ?? w.credentialKind) : '';
  const who = w.actor ? (how ? `${w.actor} (${how})` : w.actor) : how || 'someone';
  return html`last written by ${who}, ${timeTag(w.at)}`;
}

/** The drive switcher: the drive on screen, and every drive of the person with its claim date and last writer. */
function switcher(drives: PersonDrive[], current: PersonDrive): Html {
  return html`<details class="switcher" data-testid="drive-switcher">
    <summary title="${current.id}">${icon('drive')} <span data-testid="current-drive">${driveLabel(current)}</span></summary>
    <div class="panel">
      <ul class="drives">
        ${drives.map(
          (d) =>
            html`<li${d.id === current.id ? html` aria-current="true"` : ''}>
              <a href="/${d.id}/" data-drive="${d.id}">${driveLabel(d)}</a>
              <span class="muted"
                >${d.name ? html`<code>${d.id}</code> · ` : ''}${d.claimedAt ? `claimed ${dayOf(d.claimedAt)}` : 'unclaimed'}
                · ${lastWriteOf(d)}</span
              >
            </li>`,
        )}
      </ul>
      <p class="muted"><a href="/settings${`?drive=${encodeURIComponent(current.id)}`}">Name this drive</a></p>
    </div>
  </details>`;
}
