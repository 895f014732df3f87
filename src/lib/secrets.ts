import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** Secrets handed to clients (API keys, claim tokens, share keys, upload tokens) are stored as SHA-256 only. */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

export function newSecret(prefix: string, bytes = 32): string {
  return `${prefix}${randomBytes(bytes).toString('base64url')}`;
}

export function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
