import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Local-only secrets for the embedded stack: generated once and kept (mode 0600) under the
 * data folder so sessions and agent assertions survive restarts. Production passes them by env.
 */
export function loadOrCreateLocalSecrets(dataDir: string): { SESSION_SECRET: string; AGENT_SIGNING_KEY: string } {
  const file = path.resolve(dataDir, 'secrets.json');
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8'));
  mkdirSync(path.dirname(file), { recursive: true });
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const secrets = {
    SESSION_SECRET: randomBytes(32).toString('base64url'),
    AGENT_SIGNING_KEY: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  };
  writeFileSync(file, JSON.stringify(secrets, null, 2), { mode: 0o600 });
  return secrets;
}
