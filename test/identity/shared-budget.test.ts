import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApi } from '../helpers/api.js';
import { createTenant } from '../helpers/tenant.js';
import { startIdentityApi, waitFor } from './helpers.js';

const BUDGET = 6;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}

/** A real API process (src/main.ts) on its own port against the test stack. */
async function startApiProcess(): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, ['--import', 'tsx', path.resolve('src/main.ts')], {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      WRITE_BUDGET_PER_HOUR: String(BUDGET),
      PUBLIC_BASE_URL: url,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  let exited = false;
  child.on('exit', () => (exited = true));
  await waitFor(async () => {
    if (exited) throw new Error('API process exited during start-up');
    return fetch(`${url}/healthz`)
      .then((r) => r.ok)
      .catch(() => false);
  }, 60_000);
  return { url, child };
}

let a: { url: string; child: ChildProcess };
let b: { url: string; child: ChildProcess };
let api: TestApi;
beforeAll(async () => {
  [a, b, api] = await Promise.all([startApiProcess(), startApiProcess(), startIdentityApi()]);
});
afterAll(async () => {
  for (const p of [a, b]) p?.child.kill('SIGTERM');
  await api?.close();
});

describe('two API processes, one database', () => {
  it('enforce one write budget per credential', async () => {
    const tenant = await createTenant(api.ctx);
    const statuses: number[] = [];
    const remaining: string[] = [];
    for (let i = 0; i < BUDGET + 2; i++) {
      const target = i % 2 === 0 ? a : b;
      const res = await fetch(`${target.url}/v0/artifacts/shared/budget.txt`, {
        method: 'DELETE',
        headers: tenant.auth,
      });
      statuses.push(res.status);
      remaining.push(res.headers.get('x-ratelimit-remaining')!);
    }
    expect(statuses.slice(0, BUDGET).every((s) => s !== 429)).toBe(true);
    expect(statuses.slice(BUDGET)).toEqual([429, 429]);
    expect(remaining).toEqual(['5', '4', '3', '2', '1', '0', '0', '0']);

    // Concurrent writes from both processes never overspend.
    const other = await createTenant(api.ctx);
    const burst = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        fetch(`${(i % 2 ? a : b).url}/v0/artifacts/x`, { method: 'PUT', headers: other.auth }),
      ),
    );
    expect(burst.filter((r) => r.status !== 429)).toHaveLength(BUDGET);
  });
});
