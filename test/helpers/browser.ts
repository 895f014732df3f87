import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { mailboxOfApi, verificationPath } from './mailbox.js';

/**
 * The one place browser tests get Chromium from (docs/decisions.md, "Launcher"):
 *   1. CHROMIUM_PATH, else Debian's `chromium` (/usr/bin/chromium or on PATH);
 *   2. running as root with apt-get: `apt-get install chromium`;
 *   3. else the npm package @sparticuz/chromium (a headless Chromium inside the package, from
 *      the npm registry), installed once into .tools/sparticuz-chromium.
 * When none works the test fails with the reasons; a browser test is never skipped.
 * CHROMIUM_SOURCE=sparticuz goes straight to 3 (to exercise that path where 1 exists).
 */
const SPARTICUZ = '@sparticuz/chromium@147.0.0';
const SPARTICUZ_DIR = path.resolve('.tools', 'sparticuz-chromium');
const DEBIAN_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'];

export interface ResolvedChromium {
  executablePath: string;
  args: string[];
  source: string;
}

function debianChromium(): string | undefined {
  if (process.env.CHROMIUM_PATH) return process.env.CHROMIUM_PATH;
  for (const dir of ['/usr/bin', ...(process.env.PATH ?? '').split(':')]) {
    if (dir && existsSync(path.join(dir, 'chromium'))) return path.join(dir, 'chromium');
  }
  return undefined;
}

function run(cmd: string, args: string[], env: NodeJS.ProcessEnv = process.env) {
  execFileSync(cmd, args, { stdio: ['ignore', 'inherit', 'inherit'], env, timeout: 600_000 });
}

async function sparticuz(): Promise<ResolvedChromium> {
  const pkgDir = path.join(SPARTICUZ_DIR, 'node_modules', '@sparticuz', 'chromium');
  if (!existsSync(path.join(pkgDir, 'package.json'))) {
    console.log(`[browser] installing ${SPARTICUZ} from the npm registry into .tools (one time)`);
    mkdirSync(SPARTICUZ_DIR, { recursive: true });
    run('npm', [
      'install',
      '--prefix',
      SPARTICUZ_DIR,
      '--no-save',
      '--no-package-lock',
      '--no-audit',
      '--no-fund',
      '--loglevel=error',
      SPARTICUZ,
    ]);
  }
  const mod = await import(pathToFileURL(path.join(pkgDir, 'build', 'esm', 'index.js')).href);
  const pkg = mod.default ?? mod;
  return { executablePath: await pkg.executablePath(), args: pkg.args, source: SPARTICUZ };
}

let resolved: Promise<ResolvedChromium> | undefined;

export function resolveChromium(): Promise<ResolvedChromium> {
  resolved ??= (async () => {
    const reasons: string[] = [];
    if (process.env.CHROMIUM_SOURCE === 'sparticuz') return sparticuz();
    const found = debianChromium();
    if (found) return { executablePath: found, args: DEBIAN_ARGS, source: `Debian chromium (${found})` };
    reasons.push('no chromium at /usr/bin or on PATH (CHROMIUM_PATH unset)');
    if (process.getuid?.() === 0 && existsSync('/usr/bin/apt-get')) {
      try {
        console.log('[browser] installing Debian chromium with apt-get (one time)');
        const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
        run('apt-get', ['update', '-qq'], env);
        run('apt-get', ['install', '-y', '-qq', 'chromium'], env);
        if (existsSync('/usr/bin/chromium'))
          return { executablePath: '/usr/bin/chromium', args: DEBIAN_ARGS, source: 'Debian chromium (apt-get)' };
      } catch (err) {
        reasons.push(`apt-get install chromium failed: ${(err as Error).message}`);
      }
    } else {
      reasons.push('not root (or no apt-get), so no apt-get install');
    }
    try {
      return await sparticuz();
    } catch (err) {
      reasons.push(`${SPARTICUZ} failed: ${(err as Error).message}`);
    }
    throw new Error(`no Chromium for the browser tests:\n- ${reasons.join('\n- ')}`);
  })();
  return resolved;
}

/** A headless Chromium for a test; the first call may install one (allow minutes in beforeAll). */
export async function launchBrowser(): Promise<Browser> {
  const c = await resolveChromium();
  return chromium.launch({ executablePath: c.executablePath, args: c.args, headless: true });
}

/**
 * A sign-up finished in the browser as a person finishes it: the answer says to check the mail; the mailed link,
 * opened in the same browser, asks for the password chosen and signs in, landing where the sign-up was going.
 */
export async function confirmSignUpInBrowser(page: Page, apiUrl: string, email: string, password: string) {
  await page.getByText('Check your mail').first().waitFor();
  const mail = await mailboxOfApi(apiUrl).waitFor(email);
  await page.goto(`${apiUrl}${verificationPath(mail)}`);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Confirm and sign in' }).click();
}
