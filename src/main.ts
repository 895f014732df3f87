import './lib/gc-tuning.js';
import { answerClientErrors } from './edge/client-errors.js';
import { limitConnections } from './edge/connection-limit.js';
import { loadConfig } from './lib/config.js';
import { closeContext, createContext } from './platform/context.js';
import { createApp } from './server/app.js';
import { closeGracefully } from './server/graceful-close.js';
import { createContentApp } from './web/viewer/content-origin.js';

/** The API process: the HTTP listener over the app factory. */
const config = loadConfig();
const ctx = await createContext(config, 'api');
const app = createApp(ctx);
const server = app.listen(config.http.port, config.http.host, () => {
  ctx.logger.info({ url: config.http.baseUrl }, 'api listening');
});
answerClientErrors(server);
limitConnections(server, config.http.maxConnections);
// The content origin (uploaded HTML/SVG/PDF), a second listener of the same process unless CONTENT_URL points
// elsewhere.
const contentServer = process.env.CONTENT_URL
  ? undefined
  : createContentApp(ctx).listen(config.http.contentPort, config.http.host, () => {
      ctx.logger.info({ url: config.http.contentUrl }, 'content origin listening');
    });

/** Requests in flight at a stop get this long to finish (the launcher's SIGKILL follows 8 s after its SIGTERM). */
const SHUTDOWN_GRACE_MS = 5000;

let stopping = false;
async function shutdown() {
  if (stopping) return;
  stopping = true;
  await Promise.all([
    closeGracefully(server, SHUTDOWN_GRACE_MS),
    contentServer && closeGracefully(contentServer, SHUTDOWN_GRACE_MS),
  ]);
  await closeContext(ctx);
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown());
process.on('SIGINT', () => void shutdown());
