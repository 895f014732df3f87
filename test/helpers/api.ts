import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from '../../src/api/app.js';
import { answerClientErrors } from '../../src/api/middleware/methods.js';
import { loadConfig } from '../../src/config.js';
import { closeContext, createContext, type AppContext } from '../../src/context.js';
import { createContentApp } from '../../src/web/viewer/content-origin.js';

export interface TestApi {
  url: string;
  /** The content origin (uploaded HTML/SVG/PDF): http://localhost:<port>, another site than the API's 127.0.0.1. */
  contentUrl: string;
  ctx: AppContext;
  close(): Promise<void>;
}

/** An API instance in this test process, on a free port, against the test stack. Overrides change settings. */
export async function startTestApi(overrides: Record<string, string> = {}): Promise<TestApi> {
  const server = createServer();
  answerClientErrors(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const contentServer = createServer();
  await new Promise<void>((resolve) => contentServer.listen(0, '127.0.0.1', resolve));
  const contentUrl = `http://localhost:${(contentServer.address() as AddressInfo).port}`;
  const config = loadConfig({ ...process.env, PUBLIC_BASE_URL: url, CONTENT_URL: contentUrl, ...overrides });
  const ctx = await createContext(config, 'api-test');
  server.on('request', createApp(ctx));
  contentServer.on('request', createContentApp(ctx));
  return {
    url,
    contentUrl,
    ctx,
    async close() {
      server.closeAllConnections();
      contentServer.closeAllConnections();
      await new Promise((r) => contentServer.close(r));
      await new Promise((r) => server.close(r));
      await closeContext(ctx);
    },
  };
}
