import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * An OpenAI-compatible chat-completions server on 127.0.0.1 for the wiki's tests. It records what
 * it received (every request body, the characters of the document message) and answers with a
 * deterministic reading of the document: lines `ENTITY <name> | <type> | <text>` and
 * `CONCEPT <name> | <text>` become entities and concepts, `# headings` the outline, the first line
 * the summary. `mode` switches to malformed replies; `delayMs` holds each answer (concurrency tests).
 */
export interface ChatRequestSeen {
  body: any;
  /** Characters of the last user message (the document text). */
  documentChars: number;
  document: string;
}

export interface ChatTestServer {
  url: string;
  apiKey: string;
  requests: ChatRequestSeen[];
  mode: 'ok' | 'not-json' | 'wrong-shape' | 'unavailable';
  delayMs: number;
  close(): Promise<void>;
}

export function readingOf(doc: string) {
  const lines = doc.split('\n');
  const entities: { name: string; type: string; description: string }[] = [];
  const concepts: { name: string; description: string }[] = [];
  for (const line of lines) {
    const e = /^ENTITY (.+?) \| (\w+) \| (.+)$/.exec(line);
    if (e) entities.push({ name: e[1]!, type: e[2]!, description: e[3]! });
    const c = /^CONCEPT (.+?) \| (.+)$/.exec(line);
    if (c) concepts.push({ name: c[1]!, description: c[2]! });
  }
  return {
    summary: (lines[0] ?? '').slice(0, 200),
    outline: lines.filter((l) => l.startsWith('# ')).map((l) => l.slice(2)),
    entities,
    concepts,
  };
}

export async function startChatServer(opts: { apiKey?: string } = {}): Promise<ChatTestServer> {
  const apiKey = opts.apiKey ?? 'test-llm-key';
  const state: ChatTestServer = { url: '', apiKey, requests: [], mode: 'ok', delayMs: 0, close: async () => {} };
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (raw += c));
    req.on('end', () => {
      const send = (status: number, json: unknown) =>
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(json));
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions')
        return send(404, { error: { message: 'not found' } });
      if (req.headers.authorization !== `Bearer ${apiKey}`) return send(401, { error: { message: 'bad key' } });
      const body = JSON.parse(raw);
      const messages = body.messages as { role: string; content: string }[];
      const document = [...messages].reverse().find((m) => m.role === 'user')?.content ?? '';
      state.requests.push({ body, documentChars: document.length, document });
      setTimeout(() => {
        if (state.mode === 'unavailable') return send(503, { error: { message: 'overloaded' } });
        const content =
          state.mode === 'not-json'
            ? 'Sure! Here is the index: {summary: ...'
            : state.mode === 'wrong-shape'
              ? JSON.stringify({ summary: 42, entities: 'none' })
              : JSON.stringify(readingOf(document));
        send(200, {
          id: `chatcmpl-${state.requests.length}`,
          object: 'chat.completion',
          model: body.model,
          choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content, refusal: null } }],
          usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
        });
      }, state.delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  state.close = async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  };
  return state;
}
