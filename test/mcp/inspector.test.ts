import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { createTenant } from '../helpers/tenant.js';

/**
 * A stock client this project did not write: the MCP Inspector CLI (npm @modelcontextprotocol/inspector, a
 * devDependency), run on this Node (24) against the test stack, as README's "Connect an agent" shows it.
 */
const run = promisify(execFile);
const INSPECTOR = path.resolve('node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js');

let api: TestApi;
let key: string;
let home: string;
beforeAll(async () => {
  api = await startTestApi();
  key = (await createTenant(api.ctx)).apiKey;
  home = mkdtempSync(path.join(tmpdir(), 'inspector-home-'));
});
afterAll(async () => {
  await api?.close();
  rmSync(home, { recursive: true, force: true });
});

const inspector = (args: string[]) =>
  run(
    process.execPath,
    [INSPECTOR, '--cli', `${api.url}/mcp`, '--transport', 'http', '--header', `Authorization: Bearer ${key}`, ...args],
    // Its catalog and secrets go to a throwaway home, never the machine's.
    { env: { ...process.env, HOME: home, MCP_CATALOG_PATH: path.join(home, 'mcp.json') }, timeout: 60_000 },
  );

describe('MCP Inspector CLI', () => {
  it('lists the tools in strict mode with no schema errors or warnings, and calls one', async () => {
    const list = await inspector(['--method', 'tools/list', '--strict']);
    expect(list.stderr).not.toMatch(/Warning|Error|portability/i);
    const tools = (JSON.parse(list.stdout) as { tools: { name: string }[] }).tools;
    expect(tools.map((t) => t.name)).toContain('restore');

    const call = await inspector([
      '--method',
      'tools/call',
      '--tool-name',
      'upload',
      '--tool-arg',
      'path=inspector/hello.md',
      'content=hello from the inspector',
    ]);
    const result = JSON.parse(call.stdout) as { isError?: boolean; structuredContent: { path: string } };
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent.path).toBe('inspector/hello.md');
  }, 120_000);
});
