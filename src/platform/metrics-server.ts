import { createServer, type Server } from 'node:http';
import type { Registry } from 'prom-client';
import type { Config } from '../lib/config.js';
import type { Logger } from '../lib/logger.js';
import { METRICS_CONTENT_TYPE, renderMetrics } from './metrics.js';

/** How long a scrape waits for the Temporal SDK's exporter before answering without its part. */
const SDK_SCRAPE_TIMEOUT_MS = 2000;

/**
 * The worker's Prometheus endpoint, `GET /metrics` on WORKER_METRICS_HOST:WORKER_METRICS_PORT (loopback by default:
 * it has no credential, so it is reachable only where the host or the network allows): this process's instruments
 * and pool, then the Temporal SDK's runtime metrics (workflow and activity task latency, slots, polls), read from the
 * SDK's own exporter on loopback (`temporal_…` names). A port in use is logged and the worker runs without it (a
 * second worker on the same host, e.g. in tests): metrics never stop the work.
 */
export async function serveWorkerMetrics(
  settings: Config['workerMetrics'],
  registry: Registry,
  logger: Logger,
): Promise<Server | undefined> {
  if (!settings.port) return undefined;
  const server = createServer((req, res) => {
    if (req.method !== 'GET' || req.url?.split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    void Promise.all([renderMetrics(registry), sdkMetrics(settings.sdkPort)]).then(
      ([own, sdk]) => res.writeHead(200, { 'content-type': METRICS_CONTENT_TYPE }).end(own + sdk),
      (err: Error) => {
        logger.warn({ err }, 'metrics: rendering failed');
        res.writeHead(500, { 'content-type': 'text/plain' }).end('metrics unavailable\n');
      },
    );
  });
  return new Promise((resolve) => {
    server.once('error', (err) => {
      logger.warn(
        { err: err.message, port: settings.port },
        'metrics: the worker metrics port is taken; this worker serves none',
      );
      resolve(undefined);
    });
    server.listen(settings.port, settings.host, () => {
      logger.info({ url: `http://${settings.host}:${settings.port}/metrics` }, 'worker metrics listening');
      resolve(server);
    });
  });
}

/** The SDK exporter's text, or a comment saying why it is missing (its absence shows as absent series). */
async function sdkMetrics(port: number): Promise<string> {
  if (!port) return '';
  try {
    const res = await fetch(`http://127.0.0.1:${port}/metrics`, { signal: AbortSignal.timeout(SDK_SCRAPE_TIMEOUT_MS) });
    const text = await res.text();
    return text.endsWith('\n') || !text ? text : `${text}\n`;
  } catch (err) {
    return `# Temporal SDK metrics unavailable: ${(err as Error).message.replace(/\s+/g, ' ')}\n`;
  }
}
