import { z } from 'zod';

/**
 * The environment's settings as config.ts reads them: every variable, its type, bounds and default (the spec's value
 * where it fixes one, the choice in docs/decisions otherwise). config.ts turns the parsed result into the Config.
 */

const MB = 1024 * 1024;
const HOUR = 3600;
const DAY = 24 * HOUR;

const int = (fallback: number) => z.coerce.number().int().nonnegative().default(fallback);
const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);
const optionalUrl = z.url().optional();
const bool = (fallback: boolean) =>
  z
    .enum(['true', 'false', '1', '0'])
    .default(fallback ? 'true' : 'false')
    .transform((v) => v === 'true' || v === '1');

export const envSchema = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),

  // HTTP
  HOST: z.string().default('127.0.0.1'),
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  /** Open connections the API listener holds at most; past it a new one is answered 503 and closed. */
  HTTP_MAX_CONNECTIONS: positiveInt(2000),
  PUBLIC_BASE_URL: optionalUrl,
  WEB_URL: optionalUrl,
  // The content origin (uploaded HTML/SVG/PDF are served only there); default: a second local port
  CONTENT_URL: optionalUrl,
  CONTENT_PORT: z.coerce.number().int().min(0).max(65535).optional(),

  // Embedded stack (used only when the external twin is not configured)
  DATA_DIR: z.string().default('.data/dev'),
  EMBEDDED_PG_PORT: positiveInt(5433),
  TEMPORAL_PORT: positiveInt(7233),
  TEMPORAL_UI_PORT: positiveInt(8233),
  TEMPORAL_HTTP_PORT: positiveInt(7243),
  TEMPORAL_METRICS_PORT: positiveInt(7253),
  S3_PORT: positiveInt(7070),
  // The local mail catcher (maildev) npm start runs when SMTP_URL is not set: SMTP and web inbox ports
  MAILDEV_SMTP_PORT: positiveInt(1025),
  MAILDEV_WEB_PORT: positiveInt(1080),

  // PostgreSQL
  DATABASE_URL: optionalUrl,

  // Temporal
  TEMPORAL_ADDRESS: z.string().optional(),
  TEMPORAL_NAMESPACE: z.string().default('default'),
  TEMPORAL_TASK_QUEUE: z.string().default('agent-drive'),
  TEMPORAL_UI_URL: optionalUrl,

  // Object storage
  S3_ENDPOINT: optionalUrl,
  /** Where clients reach the store, when that differs from S3_ENDPOINT (Docker: http://localhost:9000 vs http://minio:9000). */
  S3_PUBLIC_ENDPOINT: optionalUrl,
  S3_REGION: z.string().default('us-east-1'),
  S3_ACCESS_KEY_ID: z.string().default('drive-local-access'),
  S3_SECRET_ACCESS_KEY: z.string().default('drive-local-secret-key'),
  S3_BUCKET: z
    .string()
    .regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'must be a valid S3 bucket name')
    .default('agent-drive'),
  S3_FORCE_PATH_STYLE: bool(true),

  // Indexing outbox drainers (docs/decisions.md, Indexing)
  OUTBOX_SHARDS: z.coerce.number().int().min(1).max(64).default(2),
  OUTBOX_BATCH: z.coerce.number().int().min(1).max(1000).default(100),
  OUTBOX_RUN_FOR_S: positiveInt(300),
  OUTBOX_IDLE_POLL_MS: positiveInt(1000),
  OUTBOX_GATHER_MS: int(100),
  /** Content the search handler reads and holds at once within a batch (an artifact larger than this goes alone). */
  OUTBOX_SEARCH_ROUND_BYTES: positiveInt(32 * MB),
  /** Passages from which a drive's semantic leg gets a graph index (docs/decisions/search.md). */
  SEARCH_GRAPH_MIN_PASSAGES: positiveInt(20_000),
  /** How long a graph build waits after its drive turns stale, so a burst of writes costs one build. */
  SEARCH_GRAPH_DELAY_S: int(60),

  // The change feed (docs/decisions/feed.md): stream polling and keepalive, webhook delivery
  FEED_POLL_MS: positiveInt(200),
  FEED_KEEPALIVE_S: z.coerce.number().int().min(1).max(15).default(15),
  /** A stream ends after this long (the client resumes with Last-Event-ID), so no credential outlives its stream. */
  FEED_STREAM_MAX_S: positiveInt(300),
  /** Open streams at once per credential, per drive and per client address (the next one is 429). */
  FEED_STREAMS_PER_CREDENTIAL: positiveInt(4),
  FEED_STREAMS_PER_DRIVE: positiveInt(16),
  FEED_STREAMS_PER_ADDRESS: positiveInt(32),
  /** Unsent bytes a stream may hold for a client that does not read; past it the stream ends. */
  FEED_STREAM_BUFFER_BYTES: positiveInt(256 * 1024),
  /** Events one connection replays to catch up; a larger gap is answered with a pointer to GET /v0/events?after=. */
  FEED_CATCH_UP_MAX: positiveInt(1000),
  /** Loopback webhook URLs (development and tests only); private, link-local and metadata ranges are always refused. */
  WEBHOOK_ALLOW_LOOPBACK: bool(false),
  // false only for bench:history's baseline: changes then carry no run (docs/decisions/runs.md).
  RUN_RECORDING: bool(true),
  /** Undo, rewind and their previews (docs/decisions/runs.md, "Bounds"): waits for a row lock, and each statement. */
  HISTORY_LOCK_TIMEOUT_MS: positiveInt(3000),
  HISTORY_STATEMENT_TIMEOUT_MS: positiveInt(30_000),
  /** Undos, rewinds and previews one API process runs at once (one per drive always); past it 429. */
  HISTORY_JOBS_PER_PROCESS: positiveInt(4),
  /** A drive's next preview (dry run) starts at least this long after its last one ended; 0: no spacing. */
  HISTORY_PREVIEW_SPACING_MS: z.coerce.number().int().min(0).default(1000),
  /** A replay that passes this many events (or the state's size, if larger) since its checkpoint keeps a new one. */
  HISTORY_CHECKPOINT_EVERY: positiveInt(1000),
  /** Ports a webhook URL may name besides 80 and 443, comma-separated (e.g. "8443,9000"). */
  WEBHOOK_PORTS: z
    .string()
    .default('')
    .transform((v) => v.split(',').filter(Boolean).map(Number))
    .pipe(z.array(z.number().int().min(1).max(65535))),
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(10_000).default(10_000),
  /** First retry after this; each later one waits twice as long, up to WEBHOOK_RETRY_MAX_S. */
  WEBHOOK_RETRY_FIRST_S: positiveInt(10),
  WEBHOOK_RETRY_MAX_S: positiveInt(HOUR),
  /** A webhook whose oldest undelivered event failed for this long is marked failing (deliveries wait for a replay). */
  WEBHOOK_GIVE_UP_S: positiveInt(DAY + HOUR),
  WEBHOOK_MAX_PER_DRIVE: positiveInt(10),
  /** Delivery attempts per drive per hour; beyond it deliveries wait for the next hour. */
  WEBHOOK_DELIVERIES_PER_DRIVE_PER_HOUR: positiveInt(10_000),
  /** Webhooks a drainer delivers to at once (its continuous pool), and at most this many of them of one drive. */
  WEBHOOK_LANES: positiveInt(16),
  WEBHOOK_IN_FLIGHT_PER_DRIVE: positiveInt(2),
  /** Wall time one webhook's turn may start sends in; a turn ends before its next send once this has passed. */
  WEBHOOK_TURN_BUDGET_MS: positiveInt(10_000),
  /** Requests one webhook keeps queued at most; past it (a long failure) the rest is re-queued page by page. */
  WEBHOOK_QUEUE_MAX: positiveInt(1000),

  // Outgoing mail (email verification links): SMTP relay URL and the From address
  SMTP_URL: optionalUrl,
  MAIL_FROM: z.string().min(3).default('Agent Artifact Drive <no-reply@localhost>'),

  // Search
  TYPESENSE_URL: optionalUrl,
  TYPESENSE_API_KEY: z.string().optional(),

  // Embeddings provider: EMBEDDINGS_URL selects any OpenAI-compatible one; without it EMBEDDINGS_PROVIDER says
  // `local` (the embedded all-MiniLM-L6-v2, the default) or `off` (no semantic search)
  EMBEDDINGS_PROVIDER: z.enum(['local', 'off']).default('local'),
  /** Where the embedded model's files are (default .tools/models/all-minilm-l6-v2, put there at install time). */
  EMBEDDINGS_MODEL_DIR: z.string().min(1).optional(),
  /** ONNX Runtime threads of the embedded model per process. */
  EMBEDDINGS_THREADS: positiveInt(1),
  EMBEDDINGS_URL: optionalUrl,
  EMBEDDINGS_API_KEY: z.string().optional(),
  EMBEDDINGS_MODEL: z.string().default('text-embedding-3-small'),
  EMBEDDINGS_DIMENSIONS: positiveInt(256),

  // Language model for the wiki (any OpenAI-compatible chat-completions endpoint); absent means no wiki, nothing sent
  LLM_URL: optionalUrl,
  LLM_API_KEY: z.string().optional(),
  LLM_MODEL: z.string().default('gpt-4o-mini'),
  LLM_TIMEOUT_S: positiveInt(120),
  // Extra requests after a reply that fails validation, before the artifact's pass is recorded as failed
  LLM_INVALID_REPLY_RETRIES: int(2),

  // Durations, seconds
  ACCESS_TOKEN_TTL_S: positiveInt(900),
  ANON_ASSERTION_TTL_S: positiveInt(30 * DAY),
  CLAIMED_ASSERTION_TTL_S: positiveInt(90 * DAY),
  CLAIM_WINDOW_S: positiveInt(600),
  UNCLAIMED_INACTIVITY_S: positiveInt(48 * HOUR),
  UNCLAIMED_MAX_AGE_S: positiveInt(30 * DAY),
  TRASH_RETENTION_S: positiveInt(30 * DAY),
  CLEANUP_INTERVAL_S: positiveInt(60),
  UPLOAD_SESSION_TTL_S: positiveInt(HOUR),
  // Objects under the upload prefix that no live session owns are deleted once this old (src/uploads/orphans.ts)
  UPLOAD_ORPHAN_GRACE_S: positiveInt(15 * 60),
  /** A presigned S3 URL cannot see a delete or a revoke: it lives only as long as a client needs to start the GET. */
  DOWNLOAD_URL_TTL_S: positiveInt(120),
  SESSION_TTL_S: positiveInt(7 * DAY),
  EMAIL_VERIFICATION_TTL_S: positiveInt(DAY),
  /** An account whose address is not confirmed within this long is retired and its address released. */
  UNVERIFIED_ACCOUNT_TTL_S: positiveInt(7 * DAY),
  UPLOAD_TOKEN_TTL_S: positiveInt(15 * 60),
  MCP_OAUTH_CODE_TTL_S: positiveInt(60),
  MCP_OAUTH_ACCESS_TTL_S: positiveInt(HOUR),
  MCP_OAUTH_REFRESH_TTL_S: positiveInt(30 * DAY),
  /** Client ID metadata documents served over http from a loopback host (tests only); elsewhere https is required. */
  OAUTH_CIMD_ALLOW_HTTP_LOOPBACK: bool(false),
  /** Client ID metadata document fetches one API process starts per minute, whoever asks (issue 54). */
  OAUTH_CIMD_FETCHES_PER_MINUTE: positiveInt(60),

  // Limits
  MAX_UPLOAD_BYTES: positiveInt(50 * MB),
  STORAGE_QUOTA_BYTES: positiveInt(500 * MB),
  LARGE_UPLOAD_MAX_BYTES: positiveInt(5 * 1024 * MB),
  // Large uploads above one PUT's limit go up in parts of this size (S3: at most 10 000 parts, each at least 5 MiB)
  UPLOAD_SINGLE_PUT_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1)
    .max(5 * 1024 * MB)
    .default(5 * 1024 * MB),
  UPLOAD_PART_BYTES: z.coerce
    .number()
    .int()
    .min(5 * MB)
    .default(512 * MB),
  SIGNED_DOWNLOAD_THRESHOLD_BYTES: int(8 * MB),
  UPLOAD_SPOOL_MEMORY_BYTES: int(4 * MB),
  // Bytes up to this size are kept in PostgreSQL with the blob row, not in S3 (docs/decisions/write-path.md); 0: never
  INLINE_BLOB_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(0)
    .max(1024 * 1024)
    .default(64 * 1024),
  // In-process cache of small blobs for downloads (content-addressed, so never stale); 0 disables it
  BLOB_CACHE_BYTES: int(128 * MB),
  BLOB_CACHE_MAX_OBJECT_BYTES: int(2 * MB),
  BLOB_GC_GRACE_S: int(HOUR),
  WRITE_BUDGET_PER_HOUR: positiveInt(100),
  // Per drive, across all its credentials: two credentials' worth, so more keys add no budget (spec 8)
  WRITE_BUDGET_PER_DRIVE_PER_HOUR: positiveInt(200),
  REGISTRATIONS_PER_IP_PER_HOUR: positiveInt(20),
  LOGIN_FAILURES_PER_IP_PER_HOUR: positiveInt(30),
  // Guessable secrets and costly doors (docs/decisions.md, Throttles)
  SIGNUPS_PER_IP_PER_HOUR: positiveInt(20),
  VERIFICATION_MAILS_PER_ACCOUNT_PER_HOUR: positiveInt(5),
  SHARE_PASSWORD_FAILURES_PER_LINK_PER_HOUR: positiveInt(20),
  SHARE_PASSWORD_FAILURES_PER_IP_PER_HOUR: positiveInt(30),
  // MCP: a tool result is at most this many characters (~20,000 tokens); larger answers are cut with a way to continue
  MCP_RESULT_MAX_CHARS: z.coerce.number().int().min(2000).default(80_000),
  MCP_IMAGE_MAX_BYTES: positiveInt(MB),
  MCP_REQUEST_MAX_BYTES: positiveInt(16 * MB),
  MCP_GREP_MAX_FILES: positiveInt(500),
  MCP_GREP_TIME_MS: positiveInt(5000),
  // read: a binary up to this size comes embedded in the result (base64); larger ones as a signed short-lived URL
  MCP_EMBED_MAX_BYTES: positiveInt(MB),
  // Browser origins allowed to call /mcp besides the service's own (comma-separated, e.g. http://localhost:6274)
  MCP_ALLOWED_ORIGINS: z.string().default(''),

  // Compile jobs (docs/decisions.md, Projects and compile jobs)
  COMPILE_TASK_QUEUE: z.string().optional(),
  COMPILE_CONCURRENCY: positiveInt(2),
  COMPILE_TIMEOUT_S: positiveInt(120),
  COMPILE_MEMORY_MB: positiveInt(1024),
  COMPILE_HEARTBEAT_TIMEOUT_S: positiveInt(15),
  COMPILE_DEBOUNCE_MS: positiveInt(3000),
  COMPILE_WAIT_S: positiveInt(60),
  COMPILE_MAX_PROJECT_BYTES: positiveInt(100 * MB),
  COMPILE_LOG_MAX_BYTES: positiveInt(MB),
  // The largest file a compile engine may write in its scratch directory (the PDF included)
  COMPILE_FILE_MAX_MB: positiveInt(256),
  // Fair scheduling (src/projects/admission.ts): jobs running at once per drive, and open (queued or running) jobs per
  // drive
  COMPILE_RUNNING_PER_DRIVE: positiveInt(1),
  COMPILE_OPEN_PER_DRIVE: positiveInt(8),
  COMPILE_OPEN_PER_ANONYMOUS_DRIVE: positiveInt(3),
  // The PATH compile engines are found on and run with (latexmk, pdflatex); default: this process's PATH
  COMPILE_PATH: z.string().optional(),

  // The worker's Prometheus endpoint (docs/operations.md), 0 = none; the Temporal SDK's exporter binds
  // WORKER_SDK_METRICS_PORT (default the next port) on loopback and the worker's /metrics includes it
  WORKER_METRICS_HOST: z.string().default('127.0.0.1'),
  WORKER_METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(9464),
  WORKER_SDK_METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),

  // Trusted ID-JAG issuers: JSON {"<agent_provider>": {"issuer": "...", "jwks_uri": "..."}}
  ID_JAG_PROVIDERS: z
    .string()
    .default('{}')
    .transform((raw, c) => {
      try {
        return JSON.parse(raw) as unknown;
      } catch {
        c.addIssue({ code: 'custom', message: 'must be a JSON object' });
        return z.NEVER;
      }
    })
    .pipe(z.record(z.string().min(1).max(64), z.object({ issuer: z.string().min(1), jwks_uri: z.url() }))),

  // Secrets; generated and persisted under DATA_DIR by the embedded launcher when absent
  SESSION_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  // Empty means none (docker-compose passes ${OPS_TOKEN:-})
  OPS_TOKEN: z.preprocess((v) => v || undefined, z.string().min(32, 'must be at least 32 characters').optional()),
  AGENT_SIGNING_KEY: z.string().optional(),
});
