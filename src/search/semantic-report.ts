/**
 * What find's semantic leg did for one answer (docs/decisions/search.md, "Hybrid that says what it did"): a hybrid
 * answer without its semantic leg, or with a leg that cannot yet see every passage, says so instead of passing for a
 * full one.
 * - `ok`: the leg ran and every passage in the query's scope has its vector;
 * - `catching_up`: the leg ran, but `pendingPassages` passages in scope are stored without their vector yet (the
 *   `embed` topic is filling them in): they are found by their words only (hybrid), or not at all (semantic);
 * - `off`: no embeddings provider is configured: the answer is lexical only;
 * - `unavailable`: the provider failed to embed the query: this hybrid answer is lexical only;
 * - `not_used`: mode=lexical asked for no semantic leg.
 */
export type SemanticStatus = 'ok' | 'catching_up' | 'off' | 'unavailable' | 'not_used';

export interface SemanticReport {
  status: SemanticStatus;
  /** With `catching_up`: passages in scope still without a vector, counted up to PENDING_CAP. */
  pendingPassages?: number;
  /** One sentence for a person or an agent. */
  note: string;
}

/** Counting stops here: the count is one probe of a partial index, and "10000 or more" says enough. */
export const PENDING_CAP = 10_000;

export function semanticReport(
  mode: 'hybrid' | 'lexical' | 'semantic',
  leg: { configured: boolean; failed?: boolean; pending?: number },
): SemanticReport {
  if (mode === 'lexical') return { status: 'not_used', note: 'mode=lexical: the semantic leg was not asked.' };
  if (!leg.configured) {
    return {
      status: 'off',
      note: 'No embeddings provider is configured: this answer is lexical only (matches by words, not by meaning).',
    };
  }
  if (leg.failed) {
    return {
      status: 'unavailable',
      note: 'The embeddings provider failed to embed the query: this answer is lexical only; try again shortly.',
    };
  }
  const pending = leg.pending ?? 0;
  if (!pending) return { status: 'ok', note: 'Both legs ran over every passage in scope.' };
  const count = pending >= PENDING_CAP ? `${PENDING_CAP} or more` : String(pending);
  const unseen = mode === 'hybrid' ? 'found by their words only' : 'not searched';
  return {
    status: 'catching_up',
    pendingPassages: pending,
    note: `The semantic leg is catching up: ${count} passage${pending === 1 ? '' : 's'} in scope ${pending === 1 ? 'is' : 'are'} not embedded yet and ${pending === 1 ? 'is' : 'are'} ${unseen} until then.`,
  };
}
