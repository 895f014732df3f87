import { extname } from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import { parsePoint, type Point } from '../history.js';
import type { GlobalOptions } from './session.js';

/** The global options (--url, --json, --actor) as seen from a subcommand. */
export const globals = (cmd: Command) => cmd.optsWithGlobals<GlobalOptions>();

/** `--label a,b --label c` → ['a', 'b', 'c']. */
export const collectLabels = (value: string, previous: string[] = []) => [
  ...previous,
  ...value
    .split(',')
    .map((l) => l.trim())
    .filter(Boolean),
];

/** Option parsers throw InvalidArgumentError: commander then prints the usage and the CLI exits 2. */
export function parseMetadata(value: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw new InvalidArgumentError('not JSON');
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new InvalidArgumentError('not a JSON object');
  return parsed as Record<string, unknown>;
}

/** An option that takes one of a few words: anything else is a usage error (exit 2) listing them. */
export const oneOf =
  <T extends string>(...allowed: T[]) =>
  (value: string): T => {
    if (!(allowed as string[]).includes(value)) throw new InvalidArgumentError(`use one of: ${allowed.join(', ')}`);
    return value as T;
  };

export const positiveInt = (value: string) => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('not a positive integer');
  return n;
};

/** A point of the drive's feed: a seq (digits) or a snapshot id (snp_…). */
export const pointArg = (value: string): Point => {
  try {
    return parsePoint(value);
  } catch {
    throw new InvalidArgumentError('not a seq or a snapshot id (snp_…)');
  }
};

const TYPES: Record<string, string> = {
  '.md': 'text/markdown',
  '.txt': 'text/plain',
  '.csv': 'text/csv',
  '.json': 'application/json',
  '.html': 'text/html',
  '.htm': 'text/html',
  '.xml': 'application/xml',
  '.yaml': 'application/yaml',
  '.yml': 'application/yaml',
  '.pdf': 'application/pdf',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.svg': 'image/svg+xml',
  '.tex': 'text/x-tex',
  '.typ': 'text/x-typst',
  '.ts': 'text/plain',
  '.js': 'text/javascript',
  '.py': 'text/x-python',
};

/** The content type a file's extension suggests; octet-stream when unknown (the server's own default). */
export const contentTypeOf = (file: string) => TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream';

/**
 * A secret from the environment variable `envName`, else the first line of stdin (piped, or typed at a prompt):
 * never a command-line argument, which other users of the machine see in the process list and shells keep in
 * their history.
 */
export async function readSecret(envName: string, prompt: string): Promise<string> {
  const fromEnv = process.env[envName];
  if (fromEnv) return fromEnv;
  return readLine(prompt);
}

/** One line from stdin (the prompt on stderr when a person is at the terminal), trimmed. */
export async function readLine(prompt: string): Promise<string> {
  if (process.stdin.isTTY) process.stderr.write(prompt);
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) {
    chunks.push(chunk as Buffer);
    if (Buffer.concat(chunks).includes(10)) break;
  }
  return Buffer.concat(chunks).toString('utf8').split(/\r?\n/)[0]!.trim();
}
