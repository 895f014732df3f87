/** A Server-Sent Events reader over fetch, for the stream tests and the bench: messages and comments as they arrive. */
export interface SseMessage {
  id: string;
  event: string;
  data: any;
}

export interface SseStream {
  status: number;
  contentType: string | null;
  messages: SseMessage[];
  comments: string[];
  /** Resolves once `n` messages have arrived (or rejects after `timeoutMs`). */
  waitFor(n: number, timeoutMs?: number): Promise<SseMessage[]>;
  /** Resolves once a comment matching `re` has arrived. */
  waitForComment(re: RegExp, timeoutMs?: number): Promise<void>;
  /** Resolves when the server ends the stream (or it is closed). */
  ended: Promise<void>;
  /** Called with each message as it is parsed (for timing). */
  onMessage?: (m: SseMessage) => void;
  close(): void;
}

export async function openSse(url: string, headers: Record<string, string>): Promise<SseStream> {
  const abort = new AbortController();
  const res = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: abort.signal });
  const stream: SseStream = {
    status: res.status,
    contentType: res.headers.get('content-type'),
    messages: [],
    comments: [],
    waitFor: (n, timeoutMs = 15_000) => until(() => stream.messages.length >= n, timeoutMs).then(() => stream.messages),
    waitForComment: (re, timeoutMs = 15_000) => until(() => stream.comments.some((c) => re.test(c)), timeoutMs),
    close: () => abort.abort(),
    ended: Promise.resolve(),
  };
  const waiters = new Set<() => void>();
  const until = (done: () => boolean, timeoutMs: number) =>
    new Promise<void>((resolve, reject) => {
      if (done()) return resolve();
      const check = () => done() && (waiters.delete(check), clearTimeout(timer), resolve());
      const timer = setTimeout(() => (waiters.delete(check), reject(new Error('SSE: timed out waiting'))), timeoutMs);
      waiters.add(check);
    });
  if (!res.ok || !res.body) return stream;
  stream.ended = (async () => {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const fields: Record<string, string> = {};
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) stream.comments.push(line.slice(1).trim());
            else {
              const i = line.indexOf(':');
              fields[line.slice(0, i)] = line.slice(i + 1).replace(/^ /, '');
            }
          }
          if (fields.data !== undefined) {
            const m = { id: fields.id ?? '', event: fields.event ?? 'message', data: JSON.parse(fields.data) };
            stream.messages.push(m);
            stream.onMessage?.(m);
          }
          for (const w of [...waiters]) w();
        }
      }
    } catch {
      // aborted
    }
  })();
  void stream.ended;
  return stream;
}
