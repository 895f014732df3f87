import type { Command } from 'commander';
import { ok, type DriveClient } from '../client.js';
import { DriveError } from '../errors.js';
import type { ClaimStart } from '../types.js';
import { globals, readLine, readSecret } from './command-kit.js';
import { configPath, readConfig, writeConfig, type StoredConfig } from './config.js';
import { emit } from './output.js';
import { anonymousClient, driveClient, serverUrl } from './session.js';

/** login, claim, whoami. */
export function addIdentityCommands(program: Command): void {
  program
    .command('login')
    .description('register an anonymous agent drive (or keep an API key) and store the credential (mode 0600)')
    .option(
      '--api-key',
      'keep an API key (ad_live_…) instead of registering an agent: read from AGENT_DRIVE_API_KEY or stdin',
    )
    .option('--force', 'replace the credential already stored (an unclaimed drive it named is then out of reach)')
    .option('--new', 'register a new drive without offering to connect to a drive you already have')
    .action(async (opts: { apiKey?: boolean; force?: boolean; new?: boolean }, cmd: Command) => {
      const g = globals(cmd);
      const existing = readConfig();
      if (existing && (existing.identity_assertion || existing.api_key) && !opts.force)
        throw new DriveError(
          409,
          'ALREADY_LOGGED_IN',
          `already logged in to ${existing.drive_id ?? 'a drive'} (${configPath()}); --force replaces it`,
        );
      const url = serverUrl(g, undefined);
      // A person at the terminal who already has a drive (made by an app's sign-in, or an earlier claim) connects to
      // it with one of its keys instead of making another drive (issue 55).
      const offered = !opts.apiKey && !opts.new && process.stdin.isTTY && !g.json ? await offerExisting(url) : '';
      if (opts.apiKey || offered) {
        const apiKey = offered || (await readSecret('AGENT_DRIVE_API_KEY', 'API key: '));
        if (!apiKey) throw new DriveError(400, 'USAGE', 'no API key: set AGENT_DRIVE_API_KEY or pipe it on stdin');
        writeConfig({ url, api_key: apiKey });
        const me = await ok(driveClient(g).api.GET('/v0/drives/me'));
        writeConfig({ url, api_key: apiKey, drive_id: me.drive_id });
        const named = me.name ? `${me.name} (${me.drive_id})` : me.drive_id;
        return emit(g.json, { drive_id: me.drive_id, name: me.name, config: configPath() }, () => [
          `logged in to ${named} at ${url} with an API key`,
          `credentials: ${configPath()}`,
        ]);
      }
      const client = anonymousClient(g);
      const reg = await ok(client.api.POST('/agent/identity', { body: { type: 'anonymous' } }));
      writeConfig({
        url,
        identity_assertion: reg.identity_assertion,
        claim_token: reg.claim_token,
        drive_id: reg.drive_id,
        agent_identity_id: reg.agent_identity_id,
      });
      const claim = await startClaim(client, reg.claim_token);
      emit(
        g.json,
        {
          drive_id: reg.drive_id,
          agent_identity_id: reg.agent_identity_id,
          expires_at: reg.expires_at,
          ...claimJson(claim),
        },
        () => [
          `registered drive ${reg.drive_id} at ${url} (unclaimed until ${reg.expires_at})`,
          `credentials: ${configPath()}`,
          claimLine(claim),
          `already have a drive? mint a key at ${url}/settings/api-keys, then: agent-drive login --api-key --force`,
        ],
      );
    });

  program
    .command('claim')
    .description('a new claim link for a human to make this drive permanent; --wait until they do')
    .option('--wait', 'poll until the claim is approved, then keep the new 90-day credential')
    .action(async (opts: { wait?: boolean }, cmd: Command) => {
      const g = globals(cmd);
      const config = readConfig();
      if (!config?.claim_token) throw new DriveError(401, 'NOT_LOGGED_IN', 'no claim token: `agent-drive login` first');
      const client = anonymousClient({ ...g, url: serverUrl(g, config) });
      const claim = await startClaim(client, config.claim_token);
      emit(g.json, claimJson(claim), () => claimLine(claim));
      if (opts.wait) {
        await waitForClaim(client, config, claim);
        emit(g.json, { claimed: true, drive_id: config.drive_id }, () => `claimed: ${config.drive_id} is permanent`);
      }
    });

  program
    .command('whoami')
    .description('the drive the stored credential acts on')
    .action(async (_opts: object, cmd: Command) => {
      const g = globals(cmd);
      const me = await ok(driveClient(g).api.GET('/v0/drives/me'));
      const config = readConfig();
      emit(g.json, me, () => [
        `drive ${me.drive_id} at ${serverUrl(g, config)}`,
        `${me.claimed ? `claimed${me.claimed_at ? ` ${me.claimed_at}` : ''}` : 'unclaimed (agent-drive claim gives a human the link)'}; owner: ${me.email ?? 'none'}; scope ${me.scope}${me.expires_at ? `; expires ${me.expires_at}` : ''}`,
        `credential: ${process.env.AGENT_DRIVE_API_KEY || config?.api_key ? 'API key' : 'agent identity'}${me.read_only ? ', read only' : ''} (${configPath()})`,
      ]);
    });
}

/** Asks whether to connect to a drive the person already has: the key they paste, or '' for a new drive. */
async function offerExisting(url: string): Promise<string> {
  process.stderr.write(
    `Connect to a drive you already have? Mint an API key at ${url}/settings/api-keys (pick the drive in the ` +
      'switcher) and paste it here; or press Enter to make a new drive.\n',
  );
  const answer = await readLine('API key (Enter for a new drive): ');
  if (answer && !answer.startsWith('ad_live_'))
    throw new DriveError(400, 'USAGE', 'that is not an API key (ad_live_…); press Enter for a new drive');
  return answer;
}

/** The human gets only the verification link and code (spec 5.7), never the claim token. */
const startClaim = (client: DriveClient, claimToken: string) =>
  ok(client.api.POST('/agent/identity/claim', { body: { claim_token: claimToken } }));

const claimJson = (claim: ClaimStart) => ({
  claim_url: claim.verification_uri_complete,
  user_code: claim.user_code,
  claim_expires_at: claim.expires_at,
  config: configPath(),
});

const claimLine = (claim: ClaimStart) =>
  `to keep this drive, a human opens: ${claim.verification_uri_complete}  (code ${claim.user_code}, valid until ${claim.expires_at})`;

/** Polls the claim grant at the interval the server asked (spec 5.7) until approved, refused or expired. */
async function waitForClaim(client: DriveClient, config: StoredConfig, claim: ClaimStart): Promise<void> {
  for (;;) {
    await new Promise((r) => setTimeout(r, Math.max(1, claim.interval) * 1000));
    const res = await client.fetch('/oauth2/token', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'claim',
        claim_token: config.claim_token!,
        claim_attempt_token: claim.claim_attempt_token,
      }).toString(),
    });
    if (res.ok) {
      const body = (await res.json()) as { access_token: string; expires_in: number; identity_assertion?: string };
      writeConfig({
        ...config,
        identity_assertion: body.identity_assertion ?? config.identity_assertion,
        access_token: body.access_token,
        access_token_expires_at: Date.now() + body.expires_in * 1000,
      });
      return;
    }
    const err = await DriveError.fromResponse(res);
    if (err.code !== 'authorization_pending' && err.code !== 'slow_down') throw err;
  }
}
