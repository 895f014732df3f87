import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';

/** Screenshots of browser tests land in test-results/<suite>/ (ignored by git, kept by CI as artifacts). */
export async function screenshot(page: Page, suite: string, name: string): Promise<string> {
  const dir = join('test-results', suite);
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}
