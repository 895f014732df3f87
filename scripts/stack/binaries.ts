import { spawn } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { guardChild, unguardChild } from './guard.js';

/**
 * Finds a Go-built helper binary (Temporal CLI, versitygw): an explicit path from the
 * environment, the project's cache in .tools/bin, the PATH, or else `go install` into
 * the cache. Versions are pinned to ones that go-install cleanly (see DESIGN.md).
 */
export interface BinarySpec {
  name: string;
  envVar: string;
  goPackage: string;
}

export const TEMPORAL_CLI: BinarySpec = {
  name: 'temporal',
  envVar: 'TEMPORAL_CLI_PATH',
  goPackage: 'github.com/temporalio/cli/cmd/temporal@v1.5.1',
};

export const VERSITYGW: BinarySpec = {
  name: 'versitygw',
  envVar: 'VERSITYGW_PATH',
  goPackage: 'github.com/versity/versitygw/cmd/versitygw@v1.7.0',
};

export function toolsBinDir(root = process.cwd()): string {
  return path.join(root, '.tools', 'bin');
}

function onPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(':')) {
    const candidate = path.join(dir, name);
    if (dir && existsSync(candidate)) return candidate;
  }
  return undefined;
}

/** The binary if it exists already (no build). */
export function findBinary(spec: BinarySpec): string | undefined {
  const explicit = process.env[spec.envVar];
  if (explicit) {
    if (!existsSync(explicit)) throw new Error(`${spec.envVar}=${explicit} does not exist`);
    return explicit;
  }
  const cached = path.join(toolsBinDir(), spec.name);
  if (existsSync(cached)) return cached;
  return onPath(spec.name);
}

/**
 * The binary, built first when missing. A first build takes minutes on a small machine, so it
 * says so every 15 s; callers build before starting any dependency, so nothing waits on a port
 * while the compiler holds the CPU.
 */
export async function ensureBinary(spec: BinarySpec, log: (msg: string) => void = console.log): Promise<string> {
  const found = findBinary(spec);
  if (found) return found;
  if (!onPath('go')) {
    throw new Error(
      `${spec.name} not found: set ${spec.envVar}, put ${spec.name} on PATH, or install Go so it can be built (go install ${spec.goPackage})`,
    );
  }
  const binDir = toolsBinDir();
  log(`building ${spec.name} with go install ${spec.goPackage} (one time, a few minutes; cached in .tools/bin)`);
  mkdirSync(binDir, { recursive: true });
  const started = Date.now();
  const elapsed = () => Math.round((Date.now() - started) / 1000);
  const progress = setInterval(() => log(`still building ${spec.name} (${elapsed()} s)`), 15_000);
  try {
    await new Promise<void>((resolve, reject) => {
      const go = spawn('go', ['install', spec.goPackage], {
        env: { ...process.env, GOBIN: binDir, GOFLAGS: '-mod=mod' },
        stdio: ['ignore', 'inherit', 'inherit'],
        detached: true,
      });
      // Our exit, however it happens, must not leave the compiler running.
      if (go.pid) guardChild(go.pid);
      const stop = () => go.kill('SIGTERM');
      process.once('exit', stop);
      go.once('error', reject);
      go.once('exit', (code, signal) => {
        process.off('exit', stop);
        if (go.pid) unguardChild(go.pid);
        if (code === 0) resolve();
        else reject(new Error(`go install ${spec.goPackage} failed (${signal ?? `exit code ${code}`})`));
      });
    });
  } finally {
    clearInterval(progress);
  }
  log(`built ${spec.name} in ${elapsed()} s`);
  return path.join(binDir, spec.name);
}

/** Builds what is missing one after the other: two Go builds at once only slow each other down. */
export async function ensureBinaries(specs: BinarySpec[], log?: (msg: string) => void): Promise<string[]> {
  const paths: string[] = [];
  for (const spec of specs) paths.push(await ensureBinary(spec, log));
  return paths;
}
