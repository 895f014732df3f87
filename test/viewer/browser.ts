import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';

/** Screenshots of browser tests land in test-results/<suite>/ (ignored by git, kept by CI as artifacts). */
export async function screenshot(page: Page, suite: string, name: string): Promise<string> {
  const dir = join('test-results', suite);
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core in the page (evaluated over the DevTools protocol, so the page's CSP allows no script of ours). */
export async function seriousViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE);
  const found = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: () => Promise<{ violations: { id: string; impact: string }[] }> } })
      .axe;
    return (await axe.run()).violations.map((v) => ({ id: v.id, impact: v.impact }));
  });
  return found.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id} (${v.impact})`);
}

/** How far the page scrolls sideways (0 or less: not at all). */
export const sidewaysScroll = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

/** The page as it stands, at both widths: axe-core clean, no sideways scroll, and a screenshot of each. */
export async function checkedAtBothWidths(page: Page, name: string, suite = 'web-screenshots') {
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 900 });
    expect(await sidewaysScroll(page), `${name} at ${width}px`).toBeLessThanOrEqual(0);
    expect(await seriousViolations(page), `${name} at ${width}px`).toEqual([]);
    await screenshot(page, suite, `${name}-${width}`);
  }
  await page.setViewportSize({ width: 1280, height: 900 });
}
