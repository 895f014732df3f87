/**
 * Ports and data folder of the test stack. TEST_PORT_BASE moves every port at once, so
 * two checkouts (or a running `npm start`) never collide.
 */
export function testStackEnv(base = Number(process.env.TEST_PORT_BASE ?? 15400)) {
  return {
    NODE_ENV: 'test',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
    DATA_DIR: `.data/test-${base}`,
    EMBEDDED_PG_PORT: String(base + 1),
    TEMPORAL_PORT: String(base + 2),
    TEMPORAL_UI_PORT: String(base + 3),
    S3_PORT: String(base + 4),
    TEMPORAL_HTTP_PORT: String(base + 5),
    TEMPORAL_METRICS_PORT: String(base + 6),
    // The worker's /metrics and the Temporal SDK exporter it reads (test/ops/metrics.test.ts scrapes them).
    WORKER_METRICS_PORT: String(base + 7),
    WORKER_SDK_METRICS_PORT: String(base + 8),
    TEMPORAL_TASK_QUEUE: `agent-drive-test-${base}`,
    CLEANUP_INTERVAL_S: '5',
    // Webhook receivers in tests listen on 127.0.0.1; retries come quickly (docs/decisions/feed.md).
    WEBHOOK_ALLOW_LOOPBACK: 'true',
    WEBHOOK_RETRY_FIRST_S: '1',
    WEBHOOK_GIVE_UP_S: '5',
    // Client ID metadata documents in tests come from a fixture on 127.0.0.1 over http (docs/decisions/identity.md).
    OAUTH_CIMD_ALLOW_HTTP_LOOPBACK: 'true',
  } as const;
}
