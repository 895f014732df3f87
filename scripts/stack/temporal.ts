import path from 'node:path';
import { devServerSearchAttributeFlags } from '../../src/temporal/search-attributes.js';
import { ensureBinary, TEMPORAL_CLI } from './binaries.js';
import { assertPortFree, spawnManaged, waitForPort } from './process.js';

/**
 * Runs `temporal server start-dev` with SQLite persistence under the data folder and its Web UI, with the service's
 * search attributes registered (DriveId, JobId, …: src/temporal/search-attributes.ts).
 */
export async function startTemporalDevServer(opts: {
  dataDir: string;
  port: number;
  uiPort: number;
  httpPort: number;
  metricsPort: number;
  namespace: string;
  /** Defaults to the cached or freshly built binary. */
  bin?: string;
  log: (m: string) => void;
}) {
  await assertPortFree(opts.port, 'Temporal', 'TEMPORAL_PORT');
  await assertPortFree(opts.uiPort, 'the Temporal UI', 'TEMPORAL_UI_PORT');
  const dataDir = path.resolve(opts.dataDir);
  const proc = spawnManaged(
    'temporal',
    opts.bin ?? (await ensureBinary(TEMPORAL_CLI, opts.log)),
    [
      'server',
      'start-dev',
      '--ip',
      '127.0.0.1',
      '--port',
      String(opts.port),
      '--ui-port',
      String(opts.uiPort),
      '--http-port',
      String(opts.httpPort),
      '--metrics-port',
      String(opts.metricsPort),
      '--db-filename',
      path.join(dataDir, 'temporal.sqlite'),
      '--namespace',
      opts.namespace,
      '--log-level',
      'warn',
      ...devServerSearchAttributeFlags(),
    ],
    { logDir: path.join(dataDir, 'logs'), pidDir: path.join(dataDir, 'run') },
  );
  // A first start creates the SQLite schema: slow on a busy machine, hence the long, talkative wait.
  await waitForPort(opts.port, proc, { log: opts.log });
  await waitForPort(opts.uiPort, proc, { log: opts.log });
  return { address: `127.0.0.1:${opts.port}`, uiUrl: `http://127.0.0.1:${opts.uiPort}`, process: proc };
}
