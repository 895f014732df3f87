import { describe, expect, it } from 'vitest';
import { gatherDelay } from '../../src/outbox/drain.js';

describe('how long an indexing drainer gathers commits', () => {
  it('keeps a lone write as fresh as before', () => {
    expect(gatherDelay(100, 0)).toBe(100);
    expect(gatherDelay(100, 1)).toBe(100);
  });

  it('gathers longer the more the last round found, up to ten times the setting', () => {
    expect(gatherDelay(100, 3)).toBe(100);
    expect(gatherDelay(100, 10)).toBe(300);
    expect(gatherDelay(100, 20)).toBe(600);
    expect(gatherDelay(100, 34)).toBe(1000);
    expect(gatherDelay(100, 5000)).toBe(1000);
    expect(gatherDelay(50, 5000)).toBe(500);
  });
});
