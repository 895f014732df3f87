import { createApp } from './api/app.js';
import { answerClientErrors } from './api/middleware/methods.js';
import { loadConfig } from './config.js';
import { closeContext, createContext } from './context.js';
import { flushSearchHooks } from './search/artifact-hook-binding.js';

/** The API process: the HTTP listener over the app factory. */
const config = loadConfig();
const ctx = await createContext(config, 'api');
const app = createApp(ctx);
const server = app.listen(config.http.port, config.http.host, () => {
  ctx.logger.info({ url: config.http.baseUrl }, 'api listening');
});
answerClientErrors(server);

let stopping = false;
async function shutdown() {
  if (stopping) return;
  stopping = true;
  server.close();
  server.closeAllConnections();
  await flushSearchHooks();
  await closeContext(ctx);
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown());
process.on('SIGINT', () => void shutdown());
