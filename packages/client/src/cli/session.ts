import { DriveClient, ok } from '../client.js';
import type { Credential } from '../credentials.js';
import { DriveError } from '../errors.js';
import { newRunId } from '../history.js';
import type { ArtifactOut } from '../types.js';
import { readConfig, writeConfig, type StoredConfig } from './config.js';

/** Options every command takes (commander's globals). */
export interface GlobalOptions {
  url?: string;
  json?: boolean;
  actor?: string;
}

export const DEFAULT_URL = 'http://localhost:8080';

/**
 * The server to talk to: --url, AGENT_DRIVE_URL, the logged-in config, then `npm start`'s default. Plain http only
 * to this machine (a credential over http to another host travels in clear text).
 */
export function serverUrl(opts: GlobalOptions, config = readConfig()): string {
  const url = opts.url ?? process.env.AGENT_DRIVE_URL ?? config?.url ?? DEFAULT_URL;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new DriveError(400, 'INVALID_URL', `not an absolute URL: ${url}`);
  }
  if (parsed.protocol === 'http:' && !isLoopback(parsed.hostname))
    throw new DriveError(
      400,
      'INSECURE_URL',
      `refusing plain http to ${parsed.host}: use https (http is for this machine only)`,
    );
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new DriveError(400, 'INVALID_URL', `not an http(s) URL: ${url}`);
  return url;
}

const isLoopback = (host: string) =>
  host === 'localhost' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host) || host.endsWith('.localhost');

/** A stored credential goes only to the origin it was issued for; --url elsewhere needs AGENT_DRIVE_API_KEY. */
function checkOrigin(target: string, config: StoredConfig): void {
  if (new URL(target).origin === new URL(config.url).origin) return;
  throw new DriveError(
    403,
    'CREDENTIAL_ORIGIN_MISMATCH',
    `the stored credential was issued by ${new URL(config.url).origin}, not ${new URL(target).origin}: ` +
      'it is not sent elsewhere (log in there, or pass AGENT_DRIVE_API_KEY)',
  );
}

/** Says on stderr that a 429/503 is being waited out, so a pause is not mistaken for a hang. */
const reportRetry = (info: { status: number; attempt: number; delayMs: number }) =>
  process.stderr.write(
    `server answered ${info.status}; retry ${info.attempt} in ${(info.delayMs / 1000).toFixed(1)} s\n`,
  );

/** A client without a credential (registration). */
export function anonymousClient(opts: GlobalOptions): DriveClient {
  return new DriveClient({ baseUrl: serverUrl(opts), retry: { onRetry: reportRetry } });
}

/** A client with the credential of AGENT_DRIVE_API_KEY or of `agent-drive login`; new access tokens are kept. */
export function driveClient(opts: GlobalOptions, run: { runId?: string } = {}): DriveClient {
  const config = readConfig();
  const credential = credentialOf(config);
  if (!credential) throw new DriveError(401, 'NOT_LOGGED_IN', 'no credential: run `agent-drive login` first');
  const baseUrl = serverUrl(opts, config);
  if (!process.env.AGENT_DRIVE_API_KEY && config) checkOrigin(baseUrl, config);
  return new DriveClient({
    baseUrl,
    credential,
    actor: opts.actor,
    runId: run.runId ?? defaultRunId(),
    retry: { onRetry: reportRetry },
    onTokenUpdate: (update) => {
      if (!config) return;
      const next: StoredConfig = {
        ...config,
        access_token: update.accessToken,
        access_token_expires_at: update.accessTokenExpiresAt,
      };
      if (update.identityAssertion) next.identity_assertion = update.identityAssertion;
      writeConfig(next);
    },
  });
}

function credentialOf(config: StoredConfig | undefined): Credential | undefined {
  if (process.env.AGENT_DRIVE_API_KEY) return { apiKey: process.env.AGENT_DRIVE_API_KEY };
  if (config?.api_key) return { apiKey: config.api_key };
  if (config?.identity_assertion)
    return {
      identityAssertion: config.identity_assertion,
      claimToken: config.claim_token,
      accessToken: config.access_token,
      accessTokenExpiresAt: config.access_token_expires_at,
    };
  return undefined;
}

const ART_ID = /^art_[A-Za-z0-9]+$/;

/** An artifact named by `art_…` id or by path (an id-shaped argument is an id, as the API routes it). */
export async function resolveArtifact(client: DriveClient, ref: string, asOf?: number): Promise<ArtifactOut> {
  const query = { as_of: asOf };
  if (ART_ID.test(ref))
    return ok(client.api.GET('/v0/artifacts/{art_id}', { params: { path: { art_id: ref }, query } }));
  return ok(client.api.GET('/v0/artifacts/{path}/meta', { params: { path: { path: ref }, query } })).catch(
    (err: unknown) => {
      if (!(err instanceof DriveError) || err.status !== 404) throw err;
      if (asOf !== undefined) throw new DriveError(404, err.code, `no live artifact at ${ref} as of seq ${asOf}`);
      const hint = `agent-drive ls ${ref.includes('/') ? ref.slice(0, ref.lastIndexOf('/') + 1) : ''} shows what is there; a deleted file comes back with agent-drive restore ${ref}`;
      throw new DriveError(404, err.code, `no live artifact at ${ref} (${hint})`);
    },
  );
}

/** A run id of its own for one CLI invocation: everything it changes is undone by one `agent-drive undo`. */
export const invocationRunId = (command: string) => newRunId(`cli-${command}`);

let invocationRun: string | undefined;
let invocationCommand = 'run';
/** main.ts names the command about to run, so the invocation's run reads `cli-put-…`, `cli-rm-…`. */
export const setInvocationCommand = (name: string) => (invocationCommand = name);
/** One run per CLI invocation (not the server's one run per credential for ten idle minutes, issue 55). */
const defaultRunId = () => (invocationRun ??= invocationRunId(invocationCommand));
