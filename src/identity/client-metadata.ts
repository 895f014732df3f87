import http, { type IncomingHttpHeaders } from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import type { AppContext } from '../platform/context.js';
import { checkWebhookUrl, guardedLookup, refusedAddress, type AddressPolicy } from '../feed/webhook-address.js';
import { AppError } from '../lib/errors.js';
import { one } from '../db/sql.js';
import { OAuthError } from './oauth-error.js';
import { countRegistration, LOOPBACK_HOSTS, redirectUrisAllowed } from './oauth-client-rules.js';

/**
 * Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document; the MCP authorization revision's
 * preferred registration): a `client_id` that is an https URL names a JSON document, published by the client, that
 * lists its redirect URIs. We fetch it like a webhook delivery (never at our own network; size and time bounded) and
 * keep it as an `oauth_clients` row until its HTTP freshness runs out, so every API process shares one cache and the
 * codes and grants of such a client reference a row like a registered client's do.
 */
export const CIMD_MAX_BYTES = 5 * 1024; // the draft's suggested bound
const FETCH_TIMEOUT_MS = 5_000;
/** Freshness when the document states none (a heuristic, as HTTP caches use); and the most we ever trust it. */
const DEFAULT_FRESH_S = 300;
const MAX_FRESH_S = 24 * 3600;
const MAX_URL_CHARS = 2000;

export interface MetadataClient {
  client_id: string;
  client_name: string | null;
  redirect_uris: string[];
}

/** A client_id that claims to be a metadata document URL (registered client ids are `mcpc_…`). */
export const isClientIdUrl = (clientId: string) => /^https?:\/\//i.test(clientId);

const refused = (why: string) => new OAuthError('invalid_client', `the client_id metadata document is refused: ${why}`);

/**
 * Why a fetched document is refused, kept for the log only: what the network said (a name that does not resolve, a
 * private address, a certificate's names, the remote's status) must not reach the caller, who could probe with it.
 */
class DocumentRefused extends Error {}
const unusable = (why: string) => new DocumentRefused(why);
export const DOCUMENT_REFUSED = 'the client_id metadata document could not be fetched or is not a valid client';

/** The draft's rules for the URL itself (https, a path, no dot segments, fragment or credentials). */
function checkClientIdUrl(raw: string, allowHttpLoopback: boolean): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw refused('client_id is not an absolute URL');
  }
  const httpOk = allowHttpLoopback && url.protocol === 'http:' && LOOPBACK_HOSTS.includes(url.hostname);
  if (url.protocol !== 'https:' && !httpOk) throw refused('client_id must be an https URL');
  if (raw.length > MAX_URL_CHARS) throw refused(`client_id is longer than ${MAX_URL_CHARS} characters`);
  if (raw.includes('#') || url.username || url.password)
    throw refused('client_id must not carry a fragment or credentials');
  const path = raw.replace(/^[a-z]+:\/\/[^/?#]*/i, '').split(/[?#]/)[0];
  if (!path || path === '/' || path.split('/').some((s) => s === '.' || s === '..'))
    throw refused('client_id must have a path, without . or .. segments');
  return url;
}

/** Seconds the document stays fresh, from Cache-Control (or Expires), minus its Age; capped. */
export function freshnessS(headers: IncomingHttpHeaders, now = Date.now()): number {
  const cc = (headers['cache-control'] ?? '').toLowerCase();
  let fresh: number;
  if (/(^|[\s,])(no-store|no-cache)\b/.test(cc)) fresh = 0;
  else {
    const maxAge = /(?:^|[\s,])(?:s-maxage|max-age)\s*=\s*"?(\d+)/.exec(cc)?.[1];
    if (maxAge !== undefined) fresh = Number(maxAge);
    else if (headers.expires !== undefined) {
      // An invalid Expires means "already expired" (RFC 9111 5.3).
      const expires = Date.parse(headers.expires);
      const date = headers.date ? Date.parse(headers.date) : now;
      fresh = Number.isNaN(expires) ? 0 : Math.floor((expires - (Number.isNaN(date) ? now : date)) / 1000);
    } else fresh = DEFAULT_FRESH_S;
  }
  const age = Number(headers.age ?? 0);
  return Math.max(0, Math.min(MAX_FRESH_S, fresh - (Number.isFinite(age) ? age : 0)));
}

interface Fetched {
  body: string;
  freshS: number;
}

/** One GET, no redirects followed, at most CIMD_MAX_BYTES within FETCH_TIMEOUT_MS, to a permitted address only. */
async function fetchDocument(url: URL, policy: AddressPolicy): Promise<Fetched> {
  try {
    await checkWebhookUrl(url.href, policy);
  } catch (err) {
    if (err instanceof AppError) throw unusable(err.message);
    throw err;
  }
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const literal = isIP(host) ? refusedAddress(host, policy) : null;
  if (literal) throw unusable(`${host} is ${literal}`);
  return new Promise<Fetched>((resolve, reject) => {
    const fail = (why: string) => {
      clearTimeout(deadline);
      req.destroy();
      reject(unusable(why));
    };
    const req = (url.protocol === 'https:' ? https : http).request(url, {
      method: 'GET',
      lookup: guardedLookup(policy),
      headers: { accept: 'application/json' },
    });
    const deadline = setTimeout(
      () => fail(`no answer from ${url.host} within ${FETCH_TIMEOUT_MS / 1000} s`),
      FETCH_TIMEOUT_MS,
    );
    req.on('error', (err) => fail(`fetching it failed: ${err.message}`));
    req.on('response', (res) => {
      const status = res.statusCode ?? 0;
      if (status >= 300 && status < 400) return fail(`${url.host} answered HTTP ${status}; redirects are not followed`);
      if (status !== 200) return fail(`${url.host} answered HTTP ${status}`);
      if (!/^application\/([\w.+-]+\+)?json\s*(;|$)/i.test(res.headers['content-type'] ?? ''))
        return fail('it is not served as application/json');
      const tooLarge = () => fail(`it is larger than ${CIMD_MAX_BYTES} bytes`);
      if (Number(res.headers['content-length'] ?? 0) > CIMD_MAX_BYTES) return tooLarge();
      const chunks: Buffer[] = [];
      let read = 0;
      res.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read > CIMD_MAX_BYTES) return tooLarge();
        chunks.push(chunk);
      });
      res.on('end', () => {
        clearTimeout(deadline);
        resolve({ body: Buffer.concat(chunks).toString('utf8'), freshS: freshnessS(res.headers) });
      });
      res.on('error', (err) => fail(`reading it failed: ${err.message}`));
    });
    req.end();
  });
}

/** The document's client, after the draft's checks (its own URL as client_id; a public client; no secrets). */
function parseDocument(clientId: string, body: string): MetadataClient {
  let doc: unknown;
  try {
    doc = JSON.parse(body);
  } catch {
    throw unusable('it is not valid JSON');
  }
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) throw unusable('it is not a JSON object');
  const d = doc as Record<string, unknown>;
  if (d.client_id !== clientId) throw unusable('its client_id differs from the URL it was fetched from');
  if (!redirectUrisAllowed(d.redirect_uris))
    throw unusable('redirect_uris must be 1-10 absolute URIs: https, http on localhost, or an app scheme; no fragment');
  if ('client_secret' in d || (d.token_endpoint_auth_method ?? 'none') !== 'none')
    throw unusable('only public clients are supported: no client_secret, token_endpoint_auth_method "none"');
  return {
    client_id: clientId,
    client_name: typeof d.client_name === 'string' ? d.client_name.slice(0, 200) : null,
    redirect_uris: d.redirect_uris,
  };
}

/**
 * Fetches started by this process in the last minute, whoever asked: OAUTH_CIMD_FETCHES_PER_MINUTE caps them, so no
 * number of client addresses turns the service into a fetcher of other people's URLs (the per-IP count is in
 * PostgreSQL; this bound is per process).
 */
const recentFetches = new WeakMap<AppContext, number[]>(); // by AppContext: one per process (and per test API)

function chargeProcessFetch(app: AppContext): void {
  const now = Date.now();
  let recent = recentFetches.get(app);
  if (!recent) recentFetches.set(app, (recent = []));
  while (recent.length && recent[0]! <= now - 60_000) recent.shift();
  if (recent.length >= app.config.oauthClients.cimdFetchesPerMinute) {
    const retryAfterS = Math.max(1, Math.ceil((recent[0]! + 60_000 - now) / 1000));
    throw new OAuthError(
      'rate_limited',
      `too many client metadata documents fetched right now; retry after ${retryAfterS} s`,
      429,
      retryAfterS,
    );
  }
  recent.push(now);
}

/**
 * The client a metadata URL names: the kept copy while fresh, else fetched again (and kept). Every fetch counts on the
 * per-IP registration limit of `clientIp` (as a registration does) and on the process's cap. A URL that breaks the
 * draft's rules is refused with the rule; any problem with the fetch or the document is one generic `invalid_client`,
 * its reason logged.
 */
export async function metadataClient(app: AppContext, clientId: string, clientIp: string): Promise<MetadataClient> {
  const allowHttpLoopback = app.config.oauthClients.cimdAllowHttpLoopback;
  const url = checkClientIdUrl(clientId, allowHttpLoopback);
  const db = app.orm.em.fork();
  const kept = await one<MetadataClient>(
    db,
    `select client_id, client_name, redirect_uris from oauth_clients where client_id = ? and metadata_fresh_until > now()`,
    [clientId],
  );
  if (kept) return kept;
  await countRegistration(app, clientIp);
  chargeProcessFetch(app);
  let fetched: Fetched;
  let client: MetadataClient;
  try {
    fetched = await fetchDocument(url, {
      allowLoopback: allowHttpLoopback,
      requireHttps: !allowHttpLoopback,
      extraPorts: [],
    });
    client = parseDocument(clientId, fetched.body);
  } catch (err) {
    if (!(err instanceof DocumentRefused)) throw err;
    app.logger.warn({ clientId, clientIp, reason: err.message }, 'client ID metadata document refused');
    throw new OAuthError('invalid_client', DOCUMENT_REFUSED);
  }
  await one(
    db,
    `insert into oauth_clients (client_id, client_name, redirect_uris, metadata_fresh_until)
       values (?, ?, array[?]::text[], now() + make_interval(secs => ?))
     on conflict (client_id) do update set client_name = excluded.client_name, redirect_uris = excluded.redirect_uris,
       metadata_fresh_until = excluded.metadata_fresh_until`,
    [clientId, client.client_name, client.redirect_uris, fetched.freshS],
  );
  return client;
}

/**
 * A metadata-document client named by a live code or grant (`named`, read first): its kept copy, fetched again only
 * once stale (counted on `clientIp`). An id no live code or grant names is never fetched (issue 54, finding 2): the
 * token endpoint needs no credential, so it must not fetch whatever URL it is sent.
 */
export async function publishedClient(app: AppContext, named: string | undefined, clientId: string, clientIp: string) {
  return named === clientId && isClientIdUrl(clientId) ? metadataClient(app, clientId, clientIp) : undefined;
}
