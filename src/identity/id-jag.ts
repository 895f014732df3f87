import type { EntityManager } from '@mikro-orm/postgresql';
import { createRemoteJWKSet, jwtVerify, type JWTPayload } from 'jose';
import { AppError } from '../lib/errors.js';
import type { Config } from '../lib/config.js';

/**
 * Verifies an ID-JAG (identity assertion JWT authorization grant) from a trusted provider:
 * issuer on the allow-list, signature against the provider's JWKS, typ, audience = our base
 * URL, expiry, sub and jti present, jti not seen before, and a verified email.
 */
export interface VerifiedIdJag {
  provider: string;
  issuer: string;
  subject: string;
  email: string;
  jti: string;
  expiresAt: Date;
}

const jwksByUri = new Map<string, ReturnType<typeof createRemoteJWKSet>>();

function jwksFor(uri: string) {
  let jwks = jwksByUri.get(uri);
  if (!jwks) {
    jwks = createRemoteJWKSet(new URL(uri), { timeoutDuration: 5000, cooldownDuration: 30_000 });
    jwksByUri.set(uri, jwks);
  }
  return jwks;
}

const invalid = (message: string) => new AppError('ID_JAG_INVALID', message);

export async function verifyIdJag(config: Config, agentProvider: string, assertion: string): Promise<VerifiedIdJag> {
  const provider = Object.hasOwn(config.idJagProviders, agentProvider)
    ? config.idJagProviders[agentProvider]
    : undefined;
  if (!provider) throw new AppError('UNKNOWN_PROVIDER', `agent_provider '${agentProvider}' is not a trusted provider`);
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(assertion, jwksFor(provider.jwks_uri), {
      issuer: provider.issuer,
      audience: config.http.baseUrl,
      typ: 'oauth-id-jag+jwt',
      requiredClaims: ['sub', 'jti', 'exp'],
      algorithms: ['ES256', 'ES384', 'RS256', 'PS256', 'EdDSA'],
    }));
  } catch (err) {
    throw invalid(`assertion rejected: ${(err as { code?: string }).code ?? 'invalid'}`);
  }
  const email = payload.email;
  if (typeof email !== 'string' || !/^[^@\s]{1,64}@[^@\s]{1,255}$/.test(email) || email.length > 320) {
    throw new AppError('ID_JAG_EMAIL_UNVERIFIED', 'the assertion carries no email');
  }
  if (payload.email_verified !== true)
    throw new AppError('ID_JAG_EMAIL_UNVERIFIED', 'the asserted email is not verified');
  return {
    provider: agentProvider,
    issuer: provider.issuer,
    subject: payload.sub!,
    email: email.toLowerCase(),
    jti: payload.jti!,
    expiresAt: new Date(payload.exp! * 1000),
  };
}

/** Records the assertion's jti; a second use of the same assertion is refused. Runs in the caller's transaction. */
export async function consumeIdJagJti(em: EntityManager, jag: VerifiedIdJag): Promise<void> {
  await em.execute('delete from id_jag_replays where expires_at < now()');
  const rows = await em.execute<{ jti: string }[]>(
    'insert into id_jag_replays (issuer, jti, expires_at) values (?, ?, ?) on conflict do nothing returning jti',
    [jag.issuer, jag.jti, jag.expiresAt],
  );
  if (!rows.length) throw invalid('assertion was already used (jti replay)');
}
