/**
 * Runs tasks in the background, one at a time per key and in the order they were added, with any
 * number of keys in flight at once. Used to send an artifact's indexing signals after the response:
 * two changes of one artifact must reach its workflow in commit order, different artifacts need not wait.
 */
export class KeyedQueue {
  private readonly tails = new Map<string, Promise<void>>();

  constructor(private readonly onError: (err: unknown, key: string) => void) {}

  /** Queues `task` behind the key's earlier tasks; returns at once. */
  push(key: string, task: () => Promise<void>): void {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const tail = previous.then(task).catch((err) => this.onError(err, key));
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
}
