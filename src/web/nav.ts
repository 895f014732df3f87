import type { Request } from 'express';
import type { Config } from '../lib/config.js';
import { html, type Html } from './html.js';
import { icon } from './icons.js';
import { readSession } from './session.js';

/**
 * The bar above every viewer and owner page: signed in, the owner's places and a search box over the drive (a GET
 * form, so it works with scripts off); signed out, a sign-in link that returns here.
 */
export function navFor(_config: Config, req: Request): Html {
  let signedIn = false;
  let drive: string | null | undefined;
  try {
    const s = readSession(req);
    signedIn = !!s?.uid;
    drive = s?.drv;
  } catch {
    signedIn = false;
  }
  const brand = html`<a class="brand" href="/">${icon('drive')} Agent Artifact Drive</a>`;
  if (!signedIn)
    return html`<header class="top">
      <div class="bar">
        ${brand}
        <nav aria-label="Account">
          <a href="/auth/login?return_to=${encodeURIComponent(req.originalUrl)}">Sign in</a>
        </nav>
      </div>
    </header>`;
  const q = typeof req.query.q === 'string' && req.path === '/search' ? req.query.q : '';
  return html`<header class="top">
    <div class="bar">
      ${brand}
      <nav aria-label="Main">
        <a href="/dashboard">Dashboard</a
        >${
          drive
            ? html`<a href="/${drive}/">Files</a><a href="/activity">Runs</a><a href="/snapshots">Snapshots</a
              ><a href="/trash">Trash</a>`
            : ''
        }<a href="/settings/api-keys"
          >API keys</a
        ><a href="/settings">Settings</a>
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
                placeholder="Search your drive"
                maxlength="200"
              />
              <button type="submit" aria-label="Search">${icon('search')}</button>
            </form>`
          : ''
      }
    </div>
  </header>`;
}
