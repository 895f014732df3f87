import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import {
  engineAvailable,
  engineStatuses,
  TEX_LIVE_INSTALL,
  TEX_LIVE_PACKAGES,
} from '../../src/projects/engine-availability.js';

/**
 * TeX Live for the LaTeX compile tests, installed the way the browser is (test/helpers/browser.ts):
 * present on PATH, else `apt-get install` (the package set of .ci/run) where we are root with
 * apt-get, else the LaTeX tests are skipped with the reason printed once by the global setup.
 * `npm test` never fails for a missing engine.
 */
export function ensureTexLive(log: (line: string) => void): void {
  const path = process.env.PATH ?? '';
  if (engineAvailable(path, 'latex')) return;
  if (process.getuid?.() === 0 && existsSync('/usr/bin/apt-get') && process.env.TEST_NO_TEX_INSTALL !== '1') {
    log(`installing TeX Live with apt-get (one time): ${TEX_LIVE_PACKAGES.join(' ')}`);
    try {
      const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
      execFileSync('apt-get', ['update', '-qq'], { stdio: ['ignore', 'inherit', 'inherit'], env, timeout: 600_000 });
      execFileSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...TEX_LIVE_PACKAGES], {
        stdio: ['ignore', 'inherit', 'inherit'],
        env,
        timeout: 1_200_000,
      });
    } catch (err) {
      log(`apt-get install failed: ${(err as Error).message}`);
    }
  }
  if (engineAvailable(path, 'latex')) return;
  log(`LaTeX compile tests will be SKIPPED: ${engineStatuses(path).latex.missing}`);
  log(`  to run them, install TeX Live (as root): ${TEX_LIVE_INSTALL}`);
}

/** Whether this test process can run LaTeX jobs (the worker and API share its PATH). */
export const hasLatex = (): boolean => engineAvailable(process.env.PATH ?? '', 'latex');
