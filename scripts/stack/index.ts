import type { Config } from '../../src/lib/config.js';
import { createS3Client, ensureBucket } from '../../src/storage/s3.js';
import { ensureBinaries, TEMPORAL_CLI, VERSITYGW, type BinarySpec } from './binaries.js';
import { claimDataDir, stopLeftovers } from './leftovers.js';
import { startMailCatcher } from './mail-catcher.js';
import { startEmbeddedPostgres } from './postgres.js';
import type { ManagedProcess } from './process.js';
import { startS3Gateway } from './s3-gateway.js';
import { loadOrCreateLocalSecrets } from './secrets.js';
import { startTemporalDevServer } from './temporal.js';

/**
 * Brings up every dependency that the environment does not already point at:
 * embedded PostgreSQL, the Temporal dev server (with its Web UI), the versitygw S3 gateway and a
 * mail catcher (maildev, with its web inbox). A mail catcher that cannot start is not fatal: the
 * API then writes mail to its log outside production (src/mail/mailer.ts).
 * Returns the environment the API and worker need, and a stop() that takes it all down.
 * Order matters on a fresh machine: claim the data folder, stop what a crashed earlier run left
 * behind, build missing binaries, and only then start anything that has a start-up deadline.
 */
export interface Stack {
  env: Record<string, string>;
  temporalUiUrl?: string;
  /** The mail catcher's web inbox, when this stack started one. */
  mailInboxUrl?: string;
  processes: ManagedProcess[];
  stop(): Promise<void>;
}

export interface StackOptions {
  /** Extra `postgres` server flags for the embedded PostgreSQL (benchmarks preload pg_stat_statements). */
  postgresFlags?: string[];
  /**
   * Start the mail catcher when SMTP_URL is not set (default true; the test stack, the benches and the topology check
   * read no mail from it).
   */
  mailCatcher?: boolean;
}

export async function startStack(config: Config, log: (m: string) => void, opts: StackOptions = {}): Promise<Stack> {
  const env: Record<string, string> = {};
  const processes: ManagedProcess[] = [];
  const stoppers: (() => Promise<void>)[] = [];
  const stop = async () => {
    for (const s of stoppers.reverse()) await s().catch((err) => log(`stop failed: ${String(err)}`));
  };
  const { dataDir } = config.embedded;
  const release = claimDataDir(dataDir);
  stoppers.push(async () => release());

  try {
    await stopLeftovers(dataDir, log);
    const needed: BinarySpec[] = [];
    if (!config.temporal.address) needed.push(TEMPORAL_CLI);
    if (!config.s3.endpoint) needed.push(VERSITYGW);
    const [temporalBin, s3Bin] = await ensureBinaries(needed, log).then((bins) => [
      config.temporal.address ? '' : bins.shift()!,
      config.s3.endpoint ? '' : bins.shift()!,
    ]);

    const secrets = loadOrCreateLocalSecrets(dataDir);
    if (!config.secrets.sessionSecret) env.SESSION_SECRET = secrets.SESSION_SECRET;
    if (!config.secrets.agentSigningKey) env.AGENT_SIGNING_KEY = secrets.AGENT_SIGNING_KEY;

    const pending: Promise<void>[] = [];
    if (!config.database.url) {
      pending.push(
        startEmbeddedPostgres({ dataDir, port: config.embedded.postgresPort, log, flags: opts.postgresFlags }).then(
          (pg) => {
            env.DATABASE_URL = pg.url;
            stoppers.push(pg.stop);
          },
        ),
      );
    }
    let temporalUiUrl = config.temporal.uiUrl;
    if (!config.temporal.address) {
      pending.push(
        startTemporalDevServer({
          dataDir,
          port: config.embedded.temporalPort,
          uiPort: config.embedded.temporalUiPort,
          httpPort: config.embedded.temporalHttpPort,
          metricsPort: config.embedded.temporalMetricsPort,
          namespace: config.temporal.namespace,
          bin: temporalBin,
          log,
        }).then((t) => {
          env.TEMPORAL_ADDRESS = t.address;
          env.TEMPORAL_UI_URL = temporalUiUrl = t.uiUrl;
          processes.push(t.process);
          stoppers.push(t.process.stop);
        }),
      );
    }
    if (!config.s3.endpoint) {
      pending.push(
        startS3Gateway({ dataDir, port: config.embedded.s3Port, ...config.s3, bin: s3Bin, log }).then((s3) => {
          env.S3_ENDPOINT = s3.endpoint;
          processes.push(s3.process);
          stoppers.push(s3.process.stop);
        }),
      );
    }
    let mailInboxUrl: string | undefined;
    if (!config.mail.smtpUrl && opts.mailCatcher !== false) {
      pending.push(
        startMailCatcher({
          dataDir,
          smtpPort: config.embedded.maildevSmtpPort,
          webPort: config.embedded.maildevWebPort,
          log,
        }).then(
          (mail) => {
            env.SMTP_URL = mail.smtpUrl;
            mailInboxUrl = mail.inboxUrl;
            processes.push(mail.process);
            stoppers.push(mail.process.stop);
          },
          (err: Error) =>
            log(`mail catcher not started (${err.message}); mail goes to the API log instead (not in production)`),
        ),
      );
    }
    const results = await Promise.allSettled(pending);
    const failed = results.find((r) => r.status === 'rejected');
    if (failed) throw (failed as PromiseRejectedResult).reason;

    const s3 = createS3Client({ ...config.s3, endpoint: env.S3_ENDPOINT ?? config.s3.endpoint });
    await ensureBucket(s3, config.s3.bucket);
    s3.destroy();
    return { env, temporalUiUrl, mailInboxUrl, processes, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
