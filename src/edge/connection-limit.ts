import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { errorEnvelope } from '../lib/errors.js';

/**
 * A server-wide cap on open connections (HTTP_MAX_CONNECTIONS, docs/decisions/hardening.md): past it a new
 * connection is answered 503 with Retry-After and closed, before it costs a request, so a flood of held
 * connections (event streams, slow clients) meets a clear answer instead of the process running out of file
 * descriptors.
 */
export function limitConnections(server: Server, max: number): void {
  const open = new Set<Socket>();
  // The HTTP server's own connection listener (the request parser) sees only the connections under the cap.
  const parse = server.listeners('connection') as ((socket: Socket) => void)[];
  for (const fn of parse) server.removeListener('connection', fn);
  server.on('connection', (socket: Socket) => {
    if (open.size >= max) {
      const body = JSON.stringify(
        errorEnvelope('SERVICE_BUSY', `the server holds its most connections (${max}); retry after 5 s`),
      );
      socket.end(
        `HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nRetry-After: 5\r\n` +
          `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
      socket.on('error', () => {});
      socket.resume(); // read and drop the request, so the peer sees the answer rather than a reset
      return;
    }
    open.add(socket);
    socket.once('close', () => open.delete(socket));
    for (const fn of parse) fn.call(server, socket);
  });
}
