import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from '../../src/api/app.js';
import { answerClientErrors } from '../../src/api/middleware/methods.js';
import { loadConfig } from '../../src/config.js';
import { closeContext, createContext, type AppContext } from '../../src/context.js';
import { flushSearchHooks } from '../../src/search/artifact-hook-binding.js';

export interface TestApi {
  url: string;
  ctx: AppContext;
  close(): Promise<void>;
}

/** An API instance in this test process, on a free port, against the test stack. Overrides change settings. */
export async function startTestApi(overrides: Record<string, string> = {}): Promise<TestApi> {
  const server = createServer();
  answerClientErrors(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const config = loadConfig({ ...process.env, PUBLIC_BASE_URL: url, ...overrides });
  const ctx = await createContext(config, 'api-test');
  server.on('request', createApp(ctx));
  return {
    url,
    ctx,
    async close() {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      await flushSearchHooks();
      await closeContext(ctx);
    },
  };
}
