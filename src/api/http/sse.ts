import type { ServerResponse } from 'node:http';

/**
 * Writes a Server-Sent Events answer with backpressure (docs/decisions/feed.md, Bounded streams): the next
 * message waits for the socket to drain, so a client that stops reading holds at most the socket's buffer and
 * one message; a stream whose unsent bytes pass `streamBufferBytes`, or that does not drain within a keepalive
 * interval, is ended (the client resumes with Last-Event-ID).
 */
export function sseWriter(
  res: ServerResponse,
  stop: AbortController,
  limits: { streamBufferBytes: number; keepaliveMs: number },
) {
  const overfull = () => res.writableLength > limits.streamBufferBytes;
  // Destroyed, not ended: an ended answer would still hold its unsent bytes for a client that does not read.
  const cut = () => {
    stop.abort();
    res.destroy();
    return false;
  };
  return {
    /** A comment or field line: skipped while the client is behind (it carries no event). */
    comment(text: string) {
      if (stop.signal.aborted || res.writableNeedDrain) return;
      res.write(text);
    },
    /** Sends one message once the socket has room; false when the stream has ended instead. */
    async send(message: string): Promise<boolean> {
      if (stop.signal.aborted) return false;
      if (res.writableNeedDrain && !(await drained(res, stop.signal, limits.keepaliveMs))) return cut();
      res.write(message);
      return overfull() ? cut() : true;
    },
  };
}

/** Resolves true at the next 'drain', false when the stream ends or `ms` passes first. */
function drained(res: ServerResponse, signal: AbortSignal, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const done = (ok: boolean) => {
      clearTimeout(timer);
      res.off('drain', onDrain);
      signal.removeEventListener('abort', onAbort);
      resolve(ok);
    };
    const onDrain = () => done(true);
    const onAbort = () => done(false);
    const timer = setTimeout(() => done(false), ms);
    res.on('drain', onDrain);
    signal.addEventListener('abort', onAbort);
  });
}
