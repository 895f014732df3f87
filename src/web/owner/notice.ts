import { csrfField, html, type Html } from '../html.js';

/**
 * The one-time notice a form's redirect carries (src/web/session.ts flash): what was done, and for a file sent to
 * the trash an Undo button (restore, CSRF-checked) that returns here.
 */
export function flashNotice(flash: Record<string, string> | undefined, csrf: string, back: string): Html | '' {
  if (!flash?.notice) return '';
  return html`<div class="notice" role="status" data-testid="notice">
    ${flash.notice}
    ${
      flash.undo
        ? html`<form class="inline" method="post" action="/trash/${flash.undo}/restore">
            ${csrfField(csrf)}<input type="hidden" name="back" value="${back}" /><button type="submit">Undo</button>
          </form>`
        : ''
    }
  </div>`;
}
