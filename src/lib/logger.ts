import { pino, type Logger } from 'pino';

export type { Logger };

/**
 * Secrets that travel in URL paths (a share link's key, a single-use upload token) or queries
 * (claim codes, OAuth codes, presigned signatures): a logged path keeps its shape, not the secret.
 */
const SECRET_PATHS: [RegExp, string][] = [
  [/^\/s\/[^/?#]+/, '/s/[redacted]'],
  [/^\/v0\/upload\/[^/?#]+/, '/v0/upload/[redacted]'],
];

export function redactUrl(url: string): string {
  const [path] = url.split('?', 1);
  const safe = SECRET_PATHS.reduce((p, [re, to]) => p.replace(re, to), path);
  return url.length > path.length ? `${safe}?[query redacted]` : safe;
}

/** Header and field names whose values are credentials, wherever a log line carries them. */
const REDACT = [
  'authorization',
  '*.authorization',
  '*.headers.authorization',
  '*.headers.cookie',
  'cookie',
  '*.cookie',
  'password',
  '*.password',
  'token',
  '*.token',
  'access_token',
  'refresh_token',
  'claim_token',
  'identity_assertion',
  'assertion',
];

export function createLogger(level: string, name: string): Logger {
  return pino({
    name,
    level,
    base: { service: name },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: REDACT, censor: '[redacted]' },
  });
}
