import { html, type Html } from './html.js';

/**
 * A secret or a snippet to copy: the text in a box, selectable with scripts off, and a Copy button the page script
 * (src/web/assets.ts) shows and wires up (it copies the box's text to the clipboard and says "Copied").
 */
export function copyable(id: string, text: string): Html {
  return html`<div class="copy-row">
    <code class="secret" id="${id}" data-testid="${id}">${text}</code>
    <button type="button" data-copy="${id}" data-testid="copy-${id}" hidden aria-live="polite">Copy</button>
  </div>`;
}
