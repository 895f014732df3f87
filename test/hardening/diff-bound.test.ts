import { afterEach, describe, expect, it, vi } from 'vitest';
import { boundedDiff } from '../../src/files/edit.js';

/**
 * The diff's wall-clock bound (src/files/edit.ts): a paused process (a busy machine) makes every clock read jump.
 * Simulated by a clock that moves 20 ms per read, past the 15 ms timeout at once: a small text's diff is still given
 * (it has no wall-clock bound, its work is bounded by its size), a large one's is given up.
 */
afterEach(() => {
  vi.restoreAllMocks();
});

function pausingClock() {
  let now = Date.now();
  vi.spyOn(Date, 'now').mockImplementation(() => (now += 20));
}

describe('boundedDiff under a pausing clock', () => {
  it('gives the diff of a small text', () => {
    const before = 'alpha\nbeta\ngamma\n';
    pausingClock();
    const diff = boundedDiff('notes.md', 1, before, before.replace('beta', 'BETA'), 'v2');
    expect(diff).toContain('-beta');
    expect(diff).toContain('+BETA');
  });

  it('gives up on a large text, as before', () => {
    const before = Array.from({ length: 400 }, (_, i) => `line ${i}`).join('\n');
    const after = Array.from({ length: 400 }, (_, i) => `changed ${i}`).join('\n');
    pausingClock();
    expect(boundedDiff('big.txt', 1, before, after, 'v2')).toContain('diff omitted');
  });
});
