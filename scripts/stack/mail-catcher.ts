import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { assertPortFree, spawnManaged, waitForPort } from './process.js';

/**
 * Runs maildev (the npm package) as the embedded SMTP server when SMTP_URL is not set: it keeps
 * every mail the service sends (verification links) and shows them in a web inbox. Both listen on
 * 127.0.0.1 only; mail is kept under `<DATA_DIR>/mail`, the newest 500.
 */
export async function startMailCatcher(opts: {
  dataDir: string;
  smtpPort: number;
  webPort: number;
  log: (m: string) => void;
}) {
  await assertPortFree(opts.smtpPort, 'the mail catcher (SMTP)', 'MAILDEV_SMTP_PORT');
  await assertPortFree(opts.webPort, 'the mail catcher (web inbox)', 'MAILDEV_WEB_PORT');
  const dataDir = path.resolve(opts.dataDir);
  const bin = path.join(path.dirname(fileURLToPath(import.meta.resolve('maildev'))), 'bin', 'maildev.js');
  const proc = spawnManaged(
    'maildev',
    process.execPath,
    [
      bin,
      '--smtp',
      String(opts.smtpPort),
      '--web',
      String(opts.webPort),
      '--ip',
      '127.0.0.1',
      '--web-ip',
      '127.0.0.1',
      '--mail-directory',
      path.join(dataDir, 'mail'),
      '--max-emails',
      '500',
    ],
    { logDir: path.join(dataDir, 'logs'), pidDir: path.join(dataDir, 'run') },
  );
  await waitForPort(opts.smtpPort, proc, { log: opts.log });
  await waitForPort(opts.webPort, proc, { log: opts.log });
  return { smtpUrl: `smtp://127.0.0.1:${opts.smtpPort}`, inboxUrl: `http://127.0.0.1:${opts.webPort}`, process: proc };
}
