import { envSchema } from './config-env.js';

/**
 * Every setting comes from the environment and is validated here once, at start-up.
 * Durations and limits that the spec fixes default to the spec's values; the ones
 * the spec leaves "not shown" default to the choices in docs/decisions.md.
 */

export type Config = ReturnType<typeof loadConfig>;

export class ConfigError extends Error {}

export function loadConfig(env: NodeJS.ProcessEnv = process.env) {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  if (e.NODE_ENV === 'production' && e.OAUTH_CIMD_ALLOW_HTTP_LOOPBACK)
    throw new ConfigError(
      'invalid configuration:\n  OAUTH_CIMD_ALLOW_HTTP_LOOPBACK: for tests only; never in production',
    );
  const baseUrl = (e.PUBLIC_BASE_URL ?? `http://localhost:${e.PORT}`).replace(/\/$/, '');
  const contentPort = e.CONTENT_PORT ?? (e.PORT === 0 ? 0 : e.PORT + 1);
  // 127.0.0.1 vs the API's localhost: a different site as well as a different origin, so not even cookies are shared.
  const contentUrl = (e.CONTENT_URL ?? `http://127.0.0.1:${contentPort}`).replace(/\/$/, '');
  return {
    env: e.NODE_ENV,
    logLevel: e.LOG_LEVEL,
    http: {
      host: e.HOST,
      port: e.PORT,
      maxConnections: e.HTTP_MAX_CONNECTIONS,
      baseUrl,
      webUrl: (e.WEB_URL ?? baseUrl).replace(/\/$/, ''),
      contentUrl,
      contentPort,
    },
    embedded: {
      dataDir: e.DATA_DIR,
      postgresPort: e.EMBEDDED_PG_PORT,
      temporalPort: e.TEMPORAL_PORT,
      temporalUiPort: e.TEMPORAL_UI_PORT,
      temporalHttpPort: e.TEMPORAL_HTTP_PORT,
      temporalMetricsPort: e.TEMPORAL_METRICS_PORT,
      s3Port: e.S3_PORT,
      maildevSmtpPort: e.MAILDEV_SMTP_PORT,
      maildevWebPort: e.MAILDEV_WEB_PORT,
    },
    mail: { smtpUrl: e.SMTP_URL, from: e.MAIL_FROM },
    database: { url: e.DATABASE_URL },
    temporal: {
      address: e.TEMPORAL_ADDRESS,
      namespace: e.TEMPORAL_NAMESPACE,
      taskQueue: e.TEMPORAL_TASK_QUEUE,
      uiUrl: e.TEMPORAL_UI_URL,
    },
    s3: {
      endpoint: e.S3_ENDPOINT,
      publicEndpoint: e.S3_PUBLIC_ENDPOINT,
      region: e.S3_REGION,
      accessKeyId: e.S3_ACCESS_KEY_ID,
      secretAccessKey: e.S3_SECRET_ACCESS_KEY,
      bucket: e.S3_BUCKET,
      forcePathStyle: e.S3_FORCE_PATH_STYLE,
    },
    typesense: e.TYPESENSE_URL ? { url: e.TYPESENSE_URL, apiKey: e.TYPESENSE_API_KEY ?? '' } : undefined,
    embeddings: e.EMBEDDINGS_URL
      ? {
          url: e.EMBEDDINGS_URL,
          apiKey: e.EMBEDDINGS_API_KEY ?? '',
          model: e.EMBEDDINGS_MODEL,
          dimensions: e.EMBEDDINGS_DIMENSIONS,
        }
      : undefined,
    /** The embedded model, used when no EMBEDDINGS_URL is set and EMBEDDINGS_PROVIDER is not `off`. */
    localEmbeddings:
      !e.EMBEDDINGS_URL && e.EMBEDDINGS_PROVIDER === 'local'
        ? { modelDir: e.EMBEDDINGS_MODEL_DIR, threads: e.EMBEDDINGS_THREADS }
        : undefined,
    llm: e.LLM_URL
      ? {
          url: e.LLM_URL.replace(/\/$/, ''),
          apiKey: e.LLM_API_KEY ?? '',
          model: e.LLM_MODEL,
          timeoutMs: e.LLM_TIMEOUT_S * 1000,
          invalidReplyRetries: e.LLM_INVALID_REPLY_RETRIES,
        }
      : undefined,
    outbox: {
      shards: e.OUTBOX_SHARDS,
      batchSize: e.OUTBOX_BATCH,
      runForMs: e.OUTBOX_RUN_FOR_S * 1000,
      idlePollMs: e.OUTBOX_IDLE_POLL_MS,
      gatherMs: e.OUTBOX_GATHER_MS,
      searchRoundBytes: e.OUTBOX_SEARCH_ROUND_BYTES,
      searchGraphMinPassages: e.SEARCH_GRAPH_MIN_PASSAGES,
      searchGraphDelayMs: e.SEARCH_GRAPH_DELAY_S * 1000,
    },
    feed: {
      pollMs: e.FEED_POLL_MS,
      keepaliveMs: e.FEED_KEEPALIVE_S * 1000,
      streamMaxMs: e.FEED_STREAM_MAX_S * 1000,
      streamsPerCredential: e.FEED_STREAMS_PER_CREDENTIAL,
      streamsPerDrive: e.FEED_STREAMS_PER_DRIVE,
      streamsPerAddress: e.FEED_STREAMS_PER_ADDRESS,
      streamBufferBytes: e.FEED_STREAM_BUFFER_BYTES,
      catchUpMax: e.FEED_CATCH_UP_MAX,
    },
    runs: {
      record: e.RUN_RECORDING,
      lockTimeoutMs: e.HISTORY_LOCK_TIMEOUT_MS,
      statementTimeoutMs: e.HISTORY_STATEMENT_TIMEOUT_MS,
      jobsPerProcess: e.HISTORY_JOBS_PER_PROCESS,
      previewSpacingMs: e.HISTORY_PREVIEW_SPACING_MS,
      checkpointEvery: e.HISTORY_CHECKPOINT_EVERY,
    },
    webhooks: {
      allowLoopback: e.WEBHOOK_ALLOW_LOOPBACK,
      requireHttps: e.NODE_ENV === 'production',
      extraPorts: e.WEBHOOK_PORTS,
      timeoutMs: e.WEBHOOK_TIMEOUT_MS,
      retryFirstS: e.WEBHOOK_RETRY_FIRST_S,
      retryMaxS: e.WEBHOOK_RETRY_MAX_S,
      giveUpS: e.WEBHOOK_GIVE_UP_S,
      maxPerDrive: e.WEBHOOK_MAX_PER_DRIVE,
      deliveriesPerDrivePerHour: e.WEBHOOK_DELIVERIES_PER_DRIVE_PER_HOUR,
      lanes: e.WEBHOOK_LANES,
      inFlightPerDrive: e.WEBHOOK_IN_FLIGHT_PER_DRIVE,
      turnBudgetMs: e.WEBHOOK_TURN_BUDGET_MS,
      queueMax: e.WEBHOOK_QUEUE_MAX,
    },
    durations: {
      accessTokenS: e.ACCESS_TOKEN_TTL_S,
      anonAssertionS: e.ANON_ASSERTION_TTL_S,
      claimedAssertionS: e.CLAIMED_ASSERTION_TTL_S,
      claimWindowS: e.CLAIM_WINDOW_S,
      unclaimedInactivityS: e.UNCLAIMED_INACTIVITY_S,
      unclaimedMaxAgeS: e.UNCLAIMED_MAX_AGE_S,
      trashRetentionS: e.TRASH_RETENTION_S,
      cleanupIntervalS: e.CLEANUP_INTERVAL_S,
      uploadSessionS: e.UPLOAD_SESSION_TTL_S,
      uploadOrphanGraceS: e.UPLOAD_ORPHAN_GRACE_S,
      downloadUrlS: e.DOWNLOAD_URL_TTL_S,
      sessionS: e.SESSION_TTL_S,
      emailVerificationS: e.EMAIL_VERIFICATION_TTL_S,
      unverifiedAccountS: e.UNVERIFIED_ACCOUNT_TTL_S,
      blobGcGraceS: e.BLOB_GC_GRACE_S,
      uploadTokenS: e.UPLOAD_TOKEN_TTL_S,
      mcpOauthCodeS: e.MCP_OAUTH_CODE_TTL_S,
      mcpOauthAccessS: e.MCP_OAUTH_ACCESS_TTL_S,
      mcpOauthRefreshS: e.MCP_OAUTH_REFRESH_TTL_S,
    },
    limits: {
      maxUploadBytes: e.MAX_UPLOAD_BYTES,
      storageQuotaBytes: e.STORAGE_QUOTA_BYTES,
      largeUploadMaxBytes: e.LARGE_UPLOAD_MAX_BYTES,
      uploadSinglePutMaxBytes: e.UPLOAD_SINGLE_PUT_MAX_BYTES,
      uploadPartBytes: e.UPLOAD_PART_BYTES,
      signedDownloadThresholdBytes: e.SIGNED_DOWNLOAD_THRESHOLD_BYTES,
      uploadSpoolMemoryBytes: e.UPLOAD_SPOOL_MEMORY_BYTES,
      inlineBlobMaxBytes: e.INLINE_BLOB_MAX_BYTES,
      blobCacheBytes: e.BLOB_CACHE_BYTES,
      blobCacheMaxObjectBytes: e.BLOB_CACHE_MAX_OBJECT_BYTES,
      writeBudgetPerHour: e.WRITE_BUDGET_PER_HOUR,
      writeBudgetPerDrivePerHour: e.WRITE_BUDGET_PER_DRIVE_PER_HOUR,
      registrationsPerIpPerHour: e.REGISTRATIONS_PER_IP_PER_HOUR,
      loginFailuresPerIpPerHour: e.LOGIN_FAILURES_PER_IP_PER_HOUR,
      signupsPerIpPerHour: e.SIGNUPS_PER_IP_PER_HOUR,
      verificationMailsPerAccountPerHour: e.VERIFICATION_MAILS_PER_ACCOUNT_PER_HOUR,
      sharePasswordFailuresPerLinkPerHour: e.SHARE_PASSWORD_FAILURES_PER_LINK_PER_HOUR,
      sharePasswordFailuresPerIpPerHour: e.SHARE_PASSWORD_FAILURES_PER_IP_PER_HOUR,
    },
    mcp: {
      resultMaxChars: e.MCP_RESULT_MAX_CHARS,
      imageMaxBytes: e.MCP_IMAGE_MAX_BYTES,
      requestMaxBytes: e.MCP_REQUEST_MAX_BYTES,
      grepMaxFiles: e.MCP_GREP_MAX_FILES,
      grepTimeMs: e.MCP_GREP_TIME_MS,
      embedMaxBytes: e.MCP_EMBED_MAX_BYTES,
      allowedOrigins: e.MCP_ALLOWED_ORIGINS.split(',')
        .map((o) => o.trim().replace(/\/$/, ''))
        .filter(Boolean),
    },
    compile: {
      taskQueue: e.COMPILE_TASK_QUEUE ?? `${e.TEMPORAL_TASK_QUEUE}-compile`,
      concurrency: e.COMPILE_CONCURRENCY,
      timeoutS: e.COMPILE_TIMEOUT_S,
      memoryMb: e.COMPILE_MEMORY_MB,
      heartbeatTimeoutS: e.COMPILE_HEARTBEAT_TIMEOUT_S,
      debounceMs: e.COMPILE_DEBOUNCE_MS,
      waitS: e.COMPILE_WAIT_S,
      maxProjectBytes: e.COMPILE_MAX_PROJECT_BYTES,
      logMaxBytes: e.COMPILE_LOG_MAX_BYTES,
      fileMaxMb: e.COMPILE_FILE_MAX_MB,
      runningPerDrive: e.COMPILE_RUNNING_PER_DRIVE,
      openPerDrive: e.COMPILE_OPEN_PER_DRIVE,
      openPerAnonymousDrive: e.COMPILE_OPEN_PER_ANONYMOUS_DRIVE,
      enginePath: e.COMPILE_PATH ?? env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    },
    oauthClients: {
      cimdAllowHttpLoopback: e.OAUTH_CIMD_ALLOW_HTTP_LOOPBACK,
      cimdFetchesPerMinute: e.OAUTH_CIMD_FETCHES_PER_MINUTE,
    },
    workerMetrics: {
      host: e.WORKER_METRICS_HOST,
      port: e.WORKER_METRICS_PORT,
      sdkPort: e.WORKER_SDK_METRICS_PORT ?? (e.WORKER_METRICS_PORT ? e.WORKER_METRICS_PORT + 1 : 0),
    },
    idJagProviders: e.ID_JAG_PROVIDERS,
    secrets: { sessionSecret: e.SESSION_SECRET, agentSigningKey: e.AGENT_SIGNING_KEY, opsToken: e.OPS_TOKEN },
  };
}

/** The trash retention window in days, as answers and pages state it. */
export const retentionDays = (config: Config) => config.durations.trashRetentionS / 86400;
