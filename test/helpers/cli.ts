import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** Running `agent-drive` (packages/client/bin) as a subprocess, as a person or a script would. */
export const CLI_BIN = path.resolve(import.meta.dirname, '../../packages/client/bin/agent-drive.js');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** A fresh config home (XDG_CONFIG_HOME) for one CLI user. */
export const freshConfigHome = () => mkdtempSync(path.join(tmpdir(), 'agent-drive-cli-'));

/**
 * Starts the CLI with `env` on top of this process's environment. Asynchronous on purpose: the API under
 * test runs in this process, and a synchronous spawn would stop it from answering.
 */
export function startCli(args: string[], env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, [CLI_BIN, ...args], {
    env: { ...process.env, ...env, NO_COLOR: '1' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
}

/** Runs the CLI to its end; `input` is written to its stdin. */
export function runCli(args: string[], env: Record<string, string>, input?: string | Buffer): Promise<CliResult> {
  const child = startCli(args, env);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdin!.end(input);
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

/** Resolves with the output so far once `predicate` holds for it (for long-running commands). */
export function outputUntil(
  child: ChildProcess,
  stream: 'stdout' | 'stderr',
  predicate: (text: string) => boolean,
): Promise<string> {
  let text = '';
  return new Promise((resolve, reject) => {
    child[stream]!.on('data', (d: Buffer) => {
      text += d.toString();
      if (predicate(text)) resolve(text);
    });
    child.on('close', (code) => reject(new Error(`agent-drive ended (${code}) before the output expected: ${text}`)));
  });
}
