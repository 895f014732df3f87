import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import { betaMemoryTool, BetaLocalFilesystemMemoryTool } from '@anthropic-ai/sdk/tools/memory/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Drive, driveMemoryTool } from '../../packages/client/src/index.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { createTenant } from '../helpers/tenant.js';
import { ensureOracle, excuseDirectorySizes, runOracle, type ToolResult } from './oracle.js';

/**
 * driveMemoryTool end to end (issue 57): the Anthropic TypeScript SDK's own toolRunner talks to a scripted Messages API
 * on 127.0.0.1 (the one external provider, replaced), which asks for memory commands as a model does. The tool_result
 * blocks the runner sends back with the drive as the backend are the reference backend's strings (the Python SDK's
 * BetaLocalFilesystemMemoryTool, the oracle of the conformance suite), an error rendered as this runner renders any
 * thrown error (`Error: <message>`, is_error), directory sizes aside. The TypeScript SDK's own filesystem backend, run
 * through the same runner, differs from the Python one in two strings only (KNOWN_TS_DIFFERENCES).
 */
type Command = Record<string, unknown> & { command: string };
interface ToolResultBlock {
  content: unknown;
  is_error: boolean;
}

const SCRIPT: Command[] = [
  { command: 'view', path: '/memories' },
  { command: 'create', path: '/memories/notes/plan.md', file_text: 'step 1\nstep 2\n' },
  { command: 'create', path: '/memories/notes/plan.md', file_text: 'again' },
  { command: 'str_replace', path: '/memories/notes/plan.md', old_str: 'step 2', new_str: 'step two' },
  { command: 'str_replace', path: '/memories/notes/plan.md', old_str: 'absent', new_str: 'x' },
  { command: 'str_replace', path: '/memories/notes/plan.md', old_str: 'step', new_str: 'x' },
  { command: 'insert', path: '/memories/notes/plan.md', insert_line: 1, insert_text: 'step 1.5' },
  { command: 'insert', path: '/memories/notes/plan.md', insert_line: 99, insert_text: 'late' },
  { command: 'view', path: '/memories/notes/plan.md', view_range: [2, 3] },
  { command: 'create', path: '/memories/café ünïcode.md', file_text: '' },
  { command: 'view', path: '/memories' },
  { command: 'rename', old_path: '/memories/notes/plan.md', new_path: '/memories/done/plan.md' },
  { command: 'view', path: '/memories/notes/plan.md' },
  { command: 'delete', path: '/memories/done' },
  { command: 'view', path: '/elsewhere/x.md' },
  { command: 'view', path: '/memories' },
];

/** A Messages API that answers each request with the script's next tool_use (one per turn), then ends the turn. */
async function scriptedMessagesApi(script: Command[]) {
  const results: ToolResultBlock[] = [];
  let turn = 0;
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      const body = JSON.parse(raw) as { messages: { role: string; content: unknown }[] };
      const last = body.messages.at(-1)!;
      if (Array.isArray(last.content))
        for (const block of last.content as { type: string; content: unknown; is_error?: boolean }[])
          if (block.type === 'tool_result') results.push({ content: block.content, is_error: block.is_error === true });
      const input = script[turn];
      const content = input
        ? [{ type: 'tool_use', id: `toolu_${turn}`, name: 'memory', input }]
        : [{ type: 'text', text: 'done' }];
      turn++;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id: `msg_${turn}`,
          type: 'message',
          role: 'assistant',
          model: 'claude-test',
          content,
          stop_reason: input ? 'tool_use' : 'end_turn',
          stop_sequence: null,
          usage: { input_tokens: 1, output_tokens: 1 },
        }),
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, results, close: () => new Promise<void>((r) => server.close(() => r())) };
}

/** Runs the script through the SDK's toolRunner with `tool` as the memory tool; the tool_result blocks it sent. */
async function runScript(tool: Parameters<Anthropic['beta']['messages']['toolRunner']>[0]['tools'][number]) {
  const fake = await scriptedMessagesApi(SCRIPT);
  try {
    const client = new Anthropic({ apiKey: 'test-key', baseURL: fake.url, maxRetries: 0 });
    const final = await client.beta.messages.toolRunner({
      model: 'claude-test',
      max_tokens: 1024,
      messages: [{ role: 'user', content: 'Remember my plan.' }],
      tools: [tool],
      max_iterations: SCRIPT.length + 2,
    });
    expect(final.content).toEqual([{ type: 'text', text: 'done' }]);
    return fake.results;
  } finally {
    await fake.close();
  }
}

const comparable = (r: ToolResultBlock) => {
  const text = typeof r.content === 'string' ? r.content : JSON.stringify(r.content);
  return excuseDirectorySizes({ result: text, is_error: r.is_error });
};

/** What the TypeScript runner sends for a reference result: a thrown error's text is `Error: <message>`. */
const asRunnerSends = (r: ToolResult): ToolResult =>
  excuseDirectorySizes(r.is_error ? { ...r, result: `Error: ${r.result}` } : r);

/** The TypeScript SDK's filesystem backend words two results unlike the Python reference (anthropic 1.14.0). */
const KNOWN_TS_DIFFERENCES = (r: ToolResult): ToolResult => ({
  ...r,
  result: r.result
    .replace('excluding hidden items and node_modules:', 'excluding hidden items:')
    .replace(/It should be within the range of lines of the file: \[0, (\d+)\]$/, (_, n: string) => {
      return `It should be within the range [0, ${Number(n) - 1}].`;
    }),
});

let api: TestApi;
let drive: Drive;
let auth: Record<string, string>;
let scratch: string;
const unavailable = ensureOracle();
beforeAll(async () => {
  api = await startTestApi();
  const tenant = await createTenant(api.ctx);
  const { apiKey } = tenant;
  auth = tenant.auth;
  drive = new Drive({ baseUrl: api.url, credential: { apiKey } });
  scratch = await mkdtemp(path.join(tmpdir(), 'memory-runner-'));
}, 120_000);
afterAll(async () => {
  await api?.close();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe('driveMemoryTool in the SDK toolRunner', () => {
  it.skipIf(unavailable)('sends the model the reference backend’s results, through the SDK’s own runner', async () => {
    const reference = (await runOracle(SCRIPT)).map(asRunnerSends);
    const viaDrive = (await runScript(driveMemoryTool(drive))).map(comparable);
    expect(viaDrive).toHaveLength(SCRIPT.length);
    expect(viaDrive.filter((r) => r.is_error)).toHaveLength(6);
    expect(viaDrive).toEqual(reference);
    const viaSdkBackend = await runScript(betaMemoryTool(await BetaLocalFilesystemMemoryTool.init(scratch)));
    expect(viaSdkBackend.map(comparable).map(KNOWN_TS_DIFFERENCES)).toEqual(reference);
    // The drive holds what the model wrote, as ordinary versioned files.
    const listed = await fetch(`${api.url}/v0/artifacts?prefix=memories/`, { headers: auth });
    const items = ((await listed.json()) as { items: { path: string; filename: string | null }[] }).items;
    expect(items.map((a) => a.filename ?? a.path)).toEqual(['café ünïcode.md']);
  });
});
