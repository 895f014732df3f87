/**
 * Remembers where each client now checked out of a pool was taken (a stack per checkout), so a
 * test API whose close hangs on a client never released can say which code holds it. CI saw such a
 * hang a few times in many runs; it never reproduced locally.
 */
interface Client {
  release: (...args: unknown[]) => void;
}
interface Pool {
  connect(...args: unknown[]): unknown;
}

export function trackCheckouts(pool: Pool): () => string[] {
  const held = new Map<Client, string>();
  const connect = pool.connect.bind(pool);
  const track = (client: Client, stack: string) => {
    held.set(client, stack);
    const release = client.release;
    client.release = (...args: unknown[]) => {
      held.delete(client);
      client.release = release;
      return release.apply(client, args);
    };
  };
  // pg-pool's connect has two forms: a callback (its own query() uses it) and a promise.
  pool.connect = (...args: unknown[]) => {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 30;
    const stack = new Error('checked out').stack ?? '';
    Error.stackTraceLimit = limit;
    const [callback] = args;
    if (typeof callback === 'function') {
      return connect((err: unknown, client: Client | undefined, done: unknown) => {
        if (client) track(client, stack);
        callback(err, client, client ? client.release : done);
      });
    }
    return (connect() as Promise<Client>).then((client) => {
      track(client, stack);
      return client;
    });
  };
  return () => [...held.values()];
}
