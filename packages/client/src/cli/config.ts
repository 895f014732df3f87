import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';

/** What `agent-drive login` keeps: the server and the credential (secrets: the file is mode 0600). */
export interface StoredConfig {
  url: string;
  api_key?: string;
  identity_assertion?: string;
  claim_token?: string;
  drive_id?: string;
  agent_identity_id?: string;
  /** The last access token, reused by the next command until a minute before it ends. */
  access_token?: string;
  access_token_expires_at?: number;
}

/** AGENT_DRIVE_CONFIG (a file: tests, several identities), else $XDG_CONFIG_HOME/agent-drive/config.json. */
export function configPath(env = process.env): string {
  if (env.AGENT_DRIVE_CONFIG) return path.resolve(env.AGENT_DRIVE_CONFIG);
  const base = env.XDG_CONFIG_HOME || path.join(homedir(), '.config');
  return path.join(base, 'agent-drive', 'config.json');
}

export function readConfig(file = configPath()): StoredConfig | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as StoredConfig;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** Writes the config readable by its owner only (an existing file keeps its mode on write, hence the chmod). */
export function writeConfig(config: StoredConfig, file = configPath()): void {
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  writeFileSync(file, JSON.stringify(config, null, 2) + '\n', { mode: 0o600 });
  chmodSync(file, 0o600);
}
