import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/server/app.js';
import { answerClientErrors } from '../../src/edge/client-errors.js';
import { loadConfig } from '../../src/lib/config.js';
import { closeContext, createContext, type AppContext } from '../../src/platform/context.js';
import { startEmbeddingsServer, type EmbeddingsTestServer } from '../helpers/embeddings-server.js';
import { runSchemathesis } from './run-schemathesis.js';

/**
 * The served contract tells the truth: schemathesis generates requests from /openapi.json and
 * checks every answer against it. Bounded by an example budget per operation and a time cap.
 */
const MAX_EXAMPLES = Number(process.env.CONTRACT_MAX_EXAMPLES ?? 160);
// 85 operations are fuzzed in about 250-290 s on 2 quiet cores, and took over 480 s while benchmarks loaded the
// machine: the cap is headroom for a busy CI machine, not a goal.
const TIMEOUT_S = Number(process.env.CONTRACT_TIMEOUT_S ?? 900);

let ctx: AppContext;
let url: string;
let requests = 0;
let embeddings: EmbeddingsTestServer;
const server = createServer();

beforeAll(async () => {
  embeddings = await startEmbeddingsServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // Budgets out of the way: thousands of generated writes on one drive are the point here.
  const config = loadConfig({
    ...process.env,
    PUBLIC_BASE_URL: url,
    WRITE_BUDGET_PER_HOUR: '1000000',
    WRITE_BUDGET_PER_DRIVE_PER_HOUR: '1000000',
    REGISTRATIONS_PER_IP_PER_HOUR: '1000000',
    // Undo previews back to back: the one-second spacing between a drive's previews is a load bound, not the contract.
    HISTORY_PREVIEW_SPACING_MS: '0',
    EMBEDDINGS_URL: embeddings.url,
    EMBEDDINGS_API_KEY: embeddings.apiKey,
  });
  ctx = await createContext(config, 'api-contract');
  const app = createApp(ctx);
  server.on('request', (req, res) => {
    requests++;
    app(req, res);
  });
  answerClientErrors(server);
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  await closeContext(ctx);
  await embeddings?.close();
});

/** A fresh anonymous agent drive and an access token for it, as an agent would get them. */
async function accessToken(): Promise<string> {
  const reg = await fetch(`${url}/agent/identity`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"type":"anonymous"}',
  });
  const { identity_assertion } = await reg.json();
  const form = new URLSearchParams({
    grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
    assertion: identity_assertion,
  });
  const tok = await fetch(`${url}/oauth2/token`, { method: 'POST', body: form });
  return (await tok.json()).access_token;
}

describe('schemathesis over /openapi.json', () => {
  it(
    'finds no difference between the document and the server',
    async () => {
      const token = await accessToken();
      // Something to read, so id-shaped operations reach their handlers rather than only 404.
      await fetch(`${url}/v0/artifacts/contract/seed.md`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'text/markdown' },
        body: '# seed\n',
      });
      const started = Date.now();
      const run = await runSchemathesis({
        schemaUrl: `${url}/openapi.json`,
        token,
        maxExamples: MAX_EXAMPLES,
        timeoutS: TIMEOUT_S,
      });
      const summary = run.output
        .split('\n')
        .filter((l) => /generated|passed|failures?|SUMMARY|ST\d{3}/.test(l))
        .slice(-25)
        .join('\n');
      console.log(
        `contract: ${requests} requests served in ${((Date.now() - started) / 1000).toFixed(0)} s; schemathesis exit ${run.code}\n${summary}`,
      );
      mkdirSync('.data', { recursive: true });
      writeFileSync('.data/contract-report.txt', run.output);
      if (run.code !== 0) console.log(`full report: .data/contract-report.txt\n${run.output.slice(-20000)}`);
      expect(run.code).toBe(0);
    },
    (TIMEOUT_S + 60) * 1000,
  );
});
