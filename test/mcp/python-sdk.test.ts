import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { createTenant } from '../helpers/tenant.js';

/**
 * The official Python SDK (a stock 2025-11-25 client) still connects after the move to the SDK v2 server: it
 * initializes, lists the tools and calls one. Its virtualenv is installed from PyPI once, under .tools/.
 */
const PYTHON_MCP = '1.30.0';
const venv = path.resolve('.tools/venv-mcp');
const python = path.join(venv, 'bin/python');

function ensurePythonSdk() {
  if (existsSync(python)) {
    try {
      execFileSync(python, ['-c', `import mcp, importlib.metadata as m; assert m.version('mcp') == '${PYTHON_MCP}'`]);
      return;
    } catch {
      // another version: reinstalled below
    }
  }
  execFileSync('python3', ['-m', 'venv', venv], { stdio: 'inherit' });
  execFileSync(path.join(venv, 'bin/pip'), ['install', '-q', `mcp==${PYTHON_MCP}`], { stdio: 'inherit' });
}

function runPython(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(python, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

let api: TestApi;
/** Why the Python SDK could not be installed (no python3 with venv): the test is then skipped, as LaTeX tests are. */
let unavailable: string | undefined;
beforeAll(async () => {
  try {
    ensurePythonSdk();
  } catch (err) {
    unavailable = `the Python MCP SDK could not be installed (python3 -m venv and pip from PyPI): ${(err as Error).message}`;
    console.log(`[python-sdk] skipped: ${unavailable}`);
  }
  api = await startTestApi();
}, 300_000);
afterAll(async () => api?.close());

describe('the Python MCP SDK', () => {
  it('initializes at 2025-11-25, lists the tools and calls overview', async (ctx) => {
    if (unavailable) return ctx.skip();
    const tenant = await createTenant(api.ctx);
    const script = path.resolve('test/mcp/fixtures/python_client.py');
    const r = await runPython([script, `${api.url}/mcp`, tenant.apiKey]);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout.trim().split('\n').pop()!) as {
      protocol: string;
      tools: string[];
      is_error: boolean;
      structured: { drive: { drive_id: string } };
    };
    expect(out.protocol).toBe('2025-11-25');
    expect(out.tools).toContain('overview');
    expect(out.is_error).toBe(false);
    expect(out.structured.drive.drive_id).toBe(tenant.driveId);
  });
});
