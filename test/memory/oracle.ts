import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';

/**
 * The memory tool's oracle: the anthropic Python SDK's BetaLocalFilesystemMemoryTool, installed from PyPI once into
 * its own virtualenv under .tools/ (as test/mcp/python-sdk.test.ts installs `mcp`), driven by
 * test/fixtures/memory-oracle.py on a scratch directory.
 */
export const ANTHROPIC_PY = '2.14.0';
const venv = path.resolve('.tools/venv-anthropic');
const python = path.join(venv, 'bin/python');

export interface ToolResult {
  result: string;
  is_error: boolean;
}

/** Installs the pinned package; answers why it could not be (no python3 with venv) so the caller can skip. */
export function ensureOracle(): string | undefined {
  try {
    if (existsSync(python)) {
      try {
        execFileSync(python, [
          '-c',
          `import importlib.metadata as m; assert m.version('anthropic') == '${ANTHROPIC_PY}'`,
        ]);
        return undefined;
      } catch {
        // another version: reinstalled below
      }
    }
    execFileSync('python3', ['-m', 'venv', venv], { stdio: 'inherit' });
    execFileSync(path.join(venv, 'bin/pip'), ['install', '-q', `anthropic==${ANTHROPIC_PY}`], { stdio: 'inherit' });
    return undefined;
  } catch (err) {
    return `the anthropic Python package could not be installed (python3 -m venv and pip): ${(err as Error).message}`;
  }
}

/** Runs the commands in order on a fresh scratch directory; one result per command. */
export function runOracle(commands: unknown[]): Promise<ToolResult[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(python, [path.resolve('test/fixtures/memory-oracle.py')], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`memory oracle exited ${code}: ${stderr}`));
      resolve(
        stdout.trim()
          ? stdout
              .trim()
              .split('\n')
              .map((l) => JSON.parse(l) as ToolResult)
          : [],
      );
    });
    child.stdin.end(JSON.stringify(commands));
  });
}

/** A directory's own size, the one field a drive cannot know: lines ending in `/` (and the header's root line). */
export const excuseDirectorySizes = (r: ToolResult): ToolResult => ({
  ...r,
  result: r.result.startsWith("Here're the files")
    ? r.result
        .split('\n')
        .map((line, i) => (i === 1 || line.endsWith('/') ? line.replace(/^[^\t]+\t/, 'DIR\t') : line))
        .join('\n')
    : r.result,
});
