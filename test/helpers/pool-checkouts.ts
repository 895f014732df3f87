/**
 * Remembers where each client now checked out of a pool was taken (a stack per checkout), so a
 * test API whose close hangs on a client never released can say which code holds it and whether
 * that client is still running a query. This is how the shutdown race of docs/decisions.md
 * (Hardening, Stopping the API) was found.
 */
interface Client {
  release: (...args: unknown[]) => void;
}
interface Pool {
  connect(...args: unknown[]): unknown;
}

/** What pg's client says of its work (private fields, read for the report only). */
function stateOf(client: Client): string {
  const c = client as unknown as {
    activeQuery?: { text?: string } | null;
    queryQueue?: unknown[];
    readyForQuery?: boolean;
  };
  const active = c.activeQuery?.text?.replace(/\s+/g, ' ').slice(0, 200) ?? null;
  return JSON.stringify({ activeQuery: active, queued: c.queryQueue?.length, readyForQuery: c.readyForQuery });
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
  return () => [...held].map(([client, stack]) => `${stateOf(client)}\n${stack}`);
}
