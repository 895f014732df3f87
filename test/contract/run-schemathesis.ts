import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';

/** The schemathesis CLI from the project's venv (.tools/venv); scripts/contract.sh installs it. */
export const SCHEMATHESIS = path.resolve('.tools/venv/bin/schemathesis');

export interface ContractRun {
  code: number;
  output: string;
}

/** One bounded run over the whole document: a fixed example budget per operation and a wall-clock cap. */
export function runSchemathesis(opts: {
  schemaUrl: string;
  token: string;
  maxExamples: number;
  timeoutS: number;
}): Promise<ContractRun> {
  if (!existsSync(SCHEMATHESIS))
    throw new Error(`${SCHEMATHESIS} is missing: run npm run test:contract (it installs schemathesis)`);
  const args = [
    '--config-file',
    path.resolve('test/contract/schemathesis.toml'),
    'run',
    opts.schemaUrl,
    '-H',
    `Authorization: Bearer ${opts.token}`,
    '--checks',
    'all',
    '--phases',
    'examples,coverage,fuzzing',
    '--max-examples',
    String(opts.maxExamples),
    '--workers',
    '2',
    '--request-timeout',
    '20',
    '--seed',
    process.env.CONTRACT_SEED ?? '1',
    '--generation-database',
    'none',
    // `{path}` templates next to `{art_id}` ones reject most generated paths by design.
    '--suppress-health-check',
    'filter_too_much',
    '--no-color',
  ];
  return new Promise((resolve) => {
    const child = spawn(SCHEMATHESIS, args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, SCHEMATHESIS_HOOKS: '' },
    });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    const timer = setTimeout(() => child.kill('SIGTERM'), opts.timeoutS * 1000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? 1, output });
    });
  });
}
