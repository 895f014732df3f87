/**
 * Runs tasks in the background, one at a time per key and in the order they were added, with at
 * most `concurrency` tasks running across keys. Used to send an artifact's indexing signals after
 * the response: two changes of one artifact must reach its workflow in commit order, different
 * artifacts need not wait for each other, and a folder move of 10,000 artifacts must not open
 * 10,000 calls to Temporal at once.
 */
export class KeyedQueue {
  private readonly tails = new Map<string, Promise<void>>();
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    private readonly onError: (err: unknown, key: string) => void,
    private readonly concurrency = 16,
  ) {}

  /** Queues `task` behind the key's earlier tasks; returns at once. */
  push(key: string, task: () => Promise<void>): void {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const tail = previous.then(() => this.withSlot(task)).catch((err) => this.onError(err, key));
    this.tails.set(key, tail);
    void tail.finally(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
  }

  /** Keys with queued or running tasks. */
  get pending(): number {
    return this.tails.size;
  }

  /** Resolves when every task queued so far (and any queued meanwhile) has settled. */
  async drain(): Promise<void> {
    while (this.tails.size) await Promise.all(this.tails.values());
  }

  private async withSlot(task: () => Promise<void>): Promise<void> {
    if (this.running >= this.concurrency) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.running++;
    try {
      await task();
    } finally {
      this.running--;
      this.waiting.shift()?.();
    }
  }
}
