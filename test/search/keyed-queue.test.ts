import { describe, expect, it } from 'vitest';
import { KeyedQueue } from '../../src/search/keyed-queue.js';

const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('KeyedQueue (background indexing signals)', () => {
  it('runs one key in order, other keys alongside, reports failures and keeps going', async () => {
    const log: string[] = [];
    const errors: string[] = [];
    const q = new KeyedQueue((err, key) => errors.push(`${key}:${(err as Error).message}`));
    let running = 0;
    let maxRunning = 0;
    const task = (name: string, ms: number, fail = false) => async () => {
      running++;
      maxRunning = Math.max(maxRunning, running);
      await tick(ms);
      running--;
      if (fail) throw new Error(name);
      log.push(name);
    };
    q.push('a', task('a1', 30));
    q.push('a', task('a2', 1, true));
    q.push('a', task('a3', 1));
    q.push('b', task('b1', 5));
    expect(q.pending).toBe(2);
    await q.drain();
    expect(log).toEqual(['b1', 'a1', 'a3']);
    expect(errors).toEqual(['a:a2']);
    expect(maxRunning).toBe(2);
    expect(q.pending).toBe(0);
  });

  it('runs at most `concurrency` tasks at once across keys, and all of them in the end', async () => {
    const q = new KeyedQueue(() => {}, 3);
    let running = 0;
    let maxRunning = 0;
    let done = 0;
    for (let i = 0; i < 20; i++) {
      q.push(`k${i}`, async () => {
        running++;
        maxRunning = Math.max(maxRunning, running);
        await tick(2);
        running--;
        done++;
      });
    }
    await q.drain();
    expect(maxRunning).toBe(3);
    expect(done).toBe(20);
  });

  it('drain also waits for tasks queued while draining', async () => {
    const q = new KeyedQueue(() => {});
    const done: number[] = [];
    q.push('k', async () => {
      await tick(10);
      q.push('other', async () => {
        await tick(10);
        done.push(2);
      });
      done.push(1);
    });
    await q.drain();
    expect(done).toEqual([1, 2]);
  });
});
