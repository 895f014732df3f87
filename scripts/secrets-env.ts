import { loadOrCreateLocalSecrets } from './stack/secrets.js';

/**
 * For docker-compose: prints `export NAME='value'` lines for SESSION_SECRET and AGENT_SIGNING_KEY,
 * taken from the environment when set, else from `<dir>/secrets.json`, generated there (mode 0600)
 * on first use. Compose runs it once in the `secrets` job (the only writer) and then in front of
 * each process: `eval "$(node --import tsx scripts/secrets-env.ts /secrets)"`.
 */
const dir = process.argv[2];
if (!dir) {
  console.error('usage: secrets-env.ts <dir>');
  process.exit(2);
}
const stored = loadOrCreateLocalSecrets(dir);
for (const name of ['SESSION_SECRET', 'AGENT_SIGNING_KEY'] as const) {
  const value = process.env[name] || stored[name];
  // Single quotes keep a PEM's newlines; neither secret can contain a single quote.
  if (value.includes("'")) throw new Error(`${name} must not contain a single quote`);
  console.log(`export ${name}='${value}'`);
}
