import type { Server } from 'node:http';

/**
 * Stops a listener before the process closes its database: no new connections, idle keep-alive
 * connections closed at once, requests in flight given `graceMs` to finish (a PUT is answered
 * rather than cut off), then every connection still open is closed.
 */
export async function closeGracefully(server: Server, graceMs: number): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  // A keep-alive connection becomes idle once its answer is sent; it is closed then, not at its timeout.
  server.closeIdleConnections();
  const sweep = setInterval(() => server.closeIdleConnections(), 25);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), graceMs)));
  const outcome = await Promise.race([closed.then(() => 'closed' as const), late]);
  clearInterval(sweep);
  clearTimeout(timer);
  if (outcome === 'late') {
    server.closeAllConnections();
    await closed;
  }
}
