import { createPrivateKey, createPublicKey, randomUUID, type KeyObject } from 'node:crypto';
import { decodeJwt, errors as joseErrors, jwtVerify, SignJWT, type JWTPayload } from 'jose';
import type { Config } from '../lib/config.js';
import { DRIVE_READ_SCOPE } from './scopes.js';

/**
 * The service's own JWTs: identity assertions and access tokens, both ES256 with
 * AGENT_SIGNING_KEY. `token_use` tells them apart, so an assertion can never pass as an
 * access token on /v0 (and the reverse at the token endpoint).
 */
export type TokenUse = 'identity_assertion' | 'access';
export type Scope = 'pre_claim' | 'full';

export interface ServiceClaims {
  sub: string; // agent identity id
  drv: string; // drive id
  scope: Scope;
  /** An access token narrowed to `drive:read` (its `scope` claim is then `<scope> drive:read`). */
  readOnly: boolean;
  jti: string;
  exp: number;
  token_use: TokenUse;
}

export class AgentAuthNotConfigured extends Error {}

export class TokenInvalid extends Error {
  constructor(
    readonly reason: 'expired' | 'invalid' | 'wrong_use',
    message: string,
  ) {
    super(message);
  }
}

interface Keys {
  privateKey: KeyObject;
  publicKey: KeyObject;
  kid: string;
}

const cache = new Map<string, Keys>();

function keysOf(config: Config): Keys {
  const pem = config.secrets.agentSigningKey;
  if (!pem) throw new AgentAuthNotConfigured('AGENT_SIGNING_KEY is not set');
  let keys = cache.get(pem);
  if (!keys) {
    let privateKey: KeyObject;
    try {
      privateKey = createPrivateKey(pem);
    } catch {
      throw new AgentAuthNotConfigured('AGENT_SIGNING_KEY is not a PEM private key');
    }
    if (privateKey.asymmetricKeyType !== 'ec' || privateKey.asymmetricKeyDetails?.namedCurve !== 'prime256v1') {
      throw new AgentAuthNotConfigured('AGENT_SIGNING_KEY must be a P-256 (ES256) key');
    }
    const publicKey = createPublicKey(privateKey);
    const jwk = publicKey.export({ format: 'jwk' });
    keys = { privateKey, publicKey, kid: `${jwk.x!.slice(0, 16)}` };
    cache.set(pem, keys);
  }
  return keys;
}

/** Throws AgentAuthNotConfigured when the signing key is absent; callers map it to 503. */
export function assertAgentAuthConfigured(config: Config): void {
  keysOf(config);
}

export async function signServiceToken(
  config: Config,
  claims: { sub: string; drv: string; scope: Scope; token_use: TokenUse; jti?: string; readOnly?: boolean },
  ttlS: number,
): Promise<{ token: string; jti: string; expiresAt: Date }> {
  const { privateKey, kid } = keysOf(config);
  const jti = claims.jti ?? randomUUID();
  const now = Math.floor(Date.now() / 1000);
  const scope = claims.readOnly ? `${claims.scope} ${DRIVE_READ_SCOPE}` : claims.scope;
  const token = await new SignJWT({ drv: claims.drv, scope, token_use: claims.token_use })
    .setProtectedHeader({ alg: 'ES256', kid, typ: 'JWT' })
    .setIssuer(config.http.baseUrl)
    .setAudience(config.http.baseUrl)
    .setSubject(claims.sub)
    .setJti(jti)
    .setIssuedAt(now)
    .setExpirationTime(now + ttlS)
    .sign(privateKey);
  return { token, jti, expiresAt: new Date((now + ttlS) * 1000) };
}

/**
 * Tokens whose signature, issuer and audience verified, by signing key, until they expire. An
 * agent sends the same access token on every request, and ES256 verification is the largest CPU
 * cost of an authenticated no-op after the SQL (docs/decisions.md, Benchmarks and the hot path).
 * Only that pure check is remembered: expiry is checked again on every use, the token's use
 * below, and whatever can change (the drive deleted, an assertion superseded) is read fresh by
 * the callers. Bounded: when full, the oldest entry goes.
 */
const VERIFIED_MAX = 4096;
const verifiedTokens = new WeakMap<Keys, Map<string, JWTPayload>>();

function rememberVerified(keys: Keys, key: string, payload: JWTPayload) {
  let verified = verifiedTokens.get(keys);
  if (!verified) verifiedTokens.set(keys, (verified = new Map()));
  if (verified.size >= VERIFIED_MAX) verified.delete(verified.keys().next().value!);
  verified.set(key, payload);
}

/** Verifies signature, issuer, audience and expiry, and that the token is of the expected use. */
export async function verifyServiceToken(config: Config, token: string, use: TokenUse): Promise<ServiceClaims> {
  const keys = keysOf(config);
  const cacheKey = `${config.http.baseUrl} ${token}`;
  let payload = verifiedTokens.get(keys)?.get(cacheKey);
  // As jose decides it: expired once the current second reaches exp.
  if (payload && Math.floor(Date.now() / 1000) >= payload.exp!) {
    verifiedTokens.get(keys)!.delete(cacheKey);
    throw new TokenInvalid('expired', 'token has expired');
  }
  if (!payload) {
    try {
      ({ payload } = await jwtVerify(token, keys.publicKey, {
        algorithms: ['ES256'],
        issuer: config.http.baseUrl,
        audience: config.http.baseUrl,
        requiredClaims: ['sub', 'jti', 'exp'],
      }));
    } catch (err) {
      if (err instanceof joseErrors.JWTExpired) throw new TokenInvalid('expired', 'token has expired');
      throw new TokenInvalid('invalid', 'token signature or claims are invalid');
    }
    rememberVerified(keys, cacheKey, payload);
  }
  if (payload.token_use !== use)
    throw new TokenInvalid('wrong_use', `token is not an ${use === 'access' ? 'access token' : 'identity assertion'}`);
  const [scope, ...narrowed] = typeof payload.scope === 'string' ? payload.scope.split(' ') : [];
  if (
    typeof payload.drv !== 'string' ||
    (scope !== 'pre_claim' && scope !== 'full') ||
    narrowed.some((s) => s !== DRIVE_READ_SCOPE)
  ) {
    throw new TokenInvalid('invalid', 'token claims are invalid');
  }
  return { ...(payload as unknown as ServiceClaims), scope, readOnly: narrowed.length > 0 };
}

/** The unverified `token_use` claim, only to pick a verifier; never trusted on its own. */
export function peekTokenUse(token: string): unknown {
  try {
    return decodeJwt(token).token_use;
  } catch {
    return undefined;
  }
}

/** A JWT-shaped string (three base64url parts); cheap pre-check before the verifier runs. */
export function looksLikeJwt(value: string): boolean {
  return /^[\w-]+\.[\w-]+\.[\w-]+$/.test(value);
}
