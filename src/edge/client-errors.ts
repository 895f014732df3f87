import type { ServerResponse } from 'node:http';
import { errorEnvelope } from '../lib/errors.js';

/**
 * Node's HTTP server answers a request it cannot parse (431 headers too large, 400 bad request)
 * before Express sees it, with an empty body; this writes the error envelope instead.
 */
export function answerClientErrors(server: {
  on(event: 'clientError', fn: (err: NodeJS.ErrnoException, socket: import('node:net').Socket) => void): unknown;
}) {
  server.on('clientError', (err, socket) => {
    if (
      err.code === 'ECONNRESET' ||
      !socket.writable ||
      (socket as unknown as { _httpMessage?: ServerResponse })._httpMessage?.headersSent
    ) {
      socket.destroy();
      return;
    }
    const tooLarge = err.code === 'HPE_HEADER_OVERFLOW';
    const [status, reason, code, message] = tooLarge
      ? [431, 'Request Header Fields Too Large', 'HEADERS_TOO_LARGE', 'request headers are too large']
      : [400, 'Bad Request', 'MALFORMED_REQUEST', 'the request could not be parsed'];
    const body = JSON.stringify(errorEnvelope(code, message));
    socket.end(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
}
