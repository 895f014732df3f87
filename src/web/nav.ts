import type { Request } from 'express';
import type { Config } from '../lib/config.js';
import { html, type Html } from './html.js';
import { readSession } from './session.js';

/** The bar above every viewer and owner page: the owner's pages when signed in, else sign-in. */
export function navFor(config: Config, req: Request): Html {
  let signedIn = false;
  let drive: string | null | undefined;
  try {
    const s = readSession(req);
    signedIn = !!s?.uid;
    drive = s?.drv;
  } catch {
    signedIn = false;
  }
  if (!signedIn)
    return html`<nav class="top"><strong>Agent Artifact Drive</strong><a href="/auth/login">Sign in</a></nav>`;
  return html`<nav class="top">
    <strong>Agent Artifact Drive</strong
    ><a href="/dashboard">Dashboard</a> ${drive ? html`<a href="/${drive}/">Files</a><a href="/trash">Trash</a>` : ''}<a
      href="/settings/sharing"
      >Sharing</a
    >
    <a href="/settings/api-keys">API keys</a><a href="/settings">Settings</a><a href="/settings/danger">Danger zone</a>
  </nav>`;
}
