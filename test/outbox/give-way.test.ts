import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { KEEPING_UP_S, noteWaits, noteWrite, takingTurns, writesArriving } from '../../src/outbox/give-way.js';

/**
 * Indexing's turns while writes arrive, on fake timers (the real indexer's rounds taking turns are in
 * test/search/indexing.test.ts). Each test starts an hour after the last one's clock, far from any write noted before.
 */
let clock = Date.UTC(2031, 0, 1);
/** What two rounds of `topic` started together did, in order: each logs its start, takes 10 ms, logs its end. */
async function twoRounds(topic: string): Promise<string[]> {
  const log: string[] = [];
  const round = (name: string) => async () => {
    log.push(`${name} starts`);
    await new Promise((resolve) => setTimeout(resolve, 10));
    log.push(`${name} ends`);
  };
  const both = Promise.all([takingTurns(topic, round('a')), takingTurns(topic, round('b'))]);
  await vi.advanceTimersByTimeAsync(20);
  await both;
  return log;
}
const SIDE_BY_SIDE = ['a starts', 'b starts', 'a ends', 'b ends'];
const IN_TURN = ['a starts', 'a ends', 'b starts', 'b ends'];

describe('indexing rounds while writes arrive', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    vi.setSystemTime((clock += 3_600_000));
  });
  afterEach(() => vi.useRealTimers());

  it('counts writes as arriving for a quarter of a second after a commit', () => {
    expect(writesArriving()).toBe(false);
    noteWrite();
    vi.advanceTimersByTime(249);
    expect(writesArriving()).toBe(true);
    vi.advanceTimersByTime(1);
    expect(writesArriving()).toBe(false);
  });

  it('rounds take turns while writes arrive, and run side by side when none do', async () => {
    expect(await twoRounds('t1')).toEqual(SIDE_BY_SIDE);
    noteWrite();
    expect(await twoRounds('t1')).toEqual(IN_TURN);
  });

  it('a topic that has fallen behind runs its rounds side by side even while writes arrive, until it catches up', async () => {
    noteWrite();
    noteWaits('t2', [0.4, KEEPING_UP_S + 1]); // its last round finished a request that had waited 4 s
    expect(await twoRounds('t2')).toEqual(SIDE_BY_SIDE);
    noteWrite();
    noteWaits('t2', [0.2, 1.1]);
    expect(await twoRounds('t2')).toEqual(IN_TURN);
  });
});
