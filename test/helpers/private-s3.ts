import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { loadConfig } from '../../src/lib/config.js';
import { startS3Gateway } from '../../scripts/stack/s3-gateway.js';
import { createS3Client, ensureBucket } from '../../src/storage/s3.js';
import { startTestApi, type TestApi } from './api.js';

/**
 * A private S3 gateway a suite can stop and start (`stop`, `start`), over its own folder on TEST_PORT_BASE + offset,
 * with an API pointed at it (settings overridden); `ready` gets the API once both are up.
 */
export function usePrivateS3(
  offset: number,
  overrides: Record<string, string>,
  ready: (api: TestApi) => Promise<void>,
): { stop: () => Promise<void>; start: () => Promise<void> } {
  const port = Number(process.env.TEST_PORT_BASE ?? 15400) + offset;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'drive-s3-private-'));
  let gateway: Awaited<ReturnType<typeof startS3Gateway>> | undefined;
  let api: TestApi | undefined;
  const start = async () => {
    const cfg = loadConfig(process.env).s3;
    gateway = await startS3Gateway({ dataDir, port, ...cfg, log: () => undefined });
    const s3 = createS3Client({ ...cfg, endpoint: gateway.endpoint });
    await ensureBucket(s3, cfg.bucket);
    s3.destroy();
  };
  beforeAll(async () => {
    await start();
    api = await startTestApi({ S3_ENDPOINT: gateway!.endpoint, ...overrides });
    await ready(api);
  });
  afterAll(async () => {
    await api?.close();
    await gateway?.process.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });
  return { stop: () => gateway!.process.stop(), start };
}
