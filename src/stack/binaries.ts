import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';

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

export function ensureBinary(spec: BinarySpec, log: (msg: string) => void = console.log): string {
  const explicit = process.env[spec.envVar];
  if (explicit) {
    if (!existsSync(explicit)) throw new Error(`${spec.envVar}=${explicit} does not exist`);
    return explicit;
  }
  const binDir = toolsBinDir();
  const cached = path.join(binDir, spec.name);
  if (existsSync(cached)) return cached;
  const found = onPath(spec.name);
  if (found) return found;
  if (!onPath('go')) {
    throw new Error(
      `${spec.name} not found: set ${spec.envVar}, put ${spec.name} on PATH, or install Go so it can be built (go install ${spec.goPackage})`,
    );
  }
  log(`building ${spec.name} with go install ${spec.goPackage} (one time, cached in .tools/bin)`);
  mkdirSync(binDir, { recursive: true });
  execFileSync('go', ['install', spec.goPackage], {
    env: { ...process.env, GOBIN: binDir, GOFLAGS: '-mod=mod' },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  return cached;
}
