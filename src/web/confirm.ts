import { csrfField, html, type Html } from './html.js';

/**
 * A destructive button that asks first, with scripts off: a disclosure whose summary is the action and whose panel
 * says what happens and holds the form that does it (CSRF-checked like every form).
 */
export function confirmButton(o: {
  label: string;
  question: string;
  action: string;
  csrf: string;
  confirm: string;
  hidden?: Html;
  testId?: string;
}): Html {
  return html`<details class="confirm" data-testid="${o.testId ?? ''}">
    <summary class="danger">${o.label}</summary>
    <div class="panel" role="group" aria-label="${o.label}">
      <p>${o.question}</p>
      <form method="post" action="${o.action}" class="inline">
        ${csrfField(o.csrf)}${o.hidden ?? ''}<button type="submit" class="danger">${o.confirm}</button>
      </form>
    </div>
  </details>`;
}
