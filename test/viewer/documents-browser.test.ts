import type { Browser, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { TestApi } from '../helpers/api.js';
import { makeDocuments, type MadeDocument } from '../search/documents-helpers.js';
import { screenshot } from './browser.js';
import { claimedOwner, mintKey, put, untilIndexed, useBrowserSuite } from './owner-helpers.js';

/**
 * Issue 58 in headless Chromium: a person searches for a word that lives on one slide of a deck and in one sheet of a
 * workbook, clicks the passage, and lands on the file's page at that unit's section (the `:target` the browser
 * scrolled to), its extracted text shown there; the original still downloads.
 */
let api: TestApi;
let browser: Browser;
useBrowserSuite((suite) => ({ api, browser } = suite));

const made = makeDocuments();
const documents = 'documents' in made ? made.documents : [];
const doc = (path: string) => documents.find((d) => d.path === path)!;

/** Where the browser landed: the `:target` section, its text and whether its top is on screen. */
const landing = (page: Page) =>
  page.evaluate(() => {
    const target = document.querySelector(':target');
    const top = target?.getBoundingClientRect().top ?? Number.NaN;
    return { id: target?.id ?? null, text: target?.textContent ?? '', onScreen: top >= 0 && top < window.innerHeight };
  });

async function searchAndOpen(page: Page, driveId: string, d: MadeDocument) {
  await page.goto(`${api.url}/${driveId}/`);
  await page.getByRole('searchbox', { name: 'Search your drive' }).fill(d.marker);
  await page.getByRole('button', { name: 'Search' }).click();
  await page.waitForURL(`**/search?q=${d.marker}&drive=*`);
  const hit = page.getByTestId('search-hit').filter({ hasText: d.path });
  expect(await hit.count()).toBe(1);
  await hit
    .getByRole('link', { name: /^Passage \d+$/ })
    .first()
    .click();
}

describe('documents: from a search hit to the unit it is in', () => {
  it.skipIf('unavailable' in made)('opens a deck at its slide and a workbook at its sheet', async () => {
    const page = await browser.newPage();
    const driveId = await claimedOwner(api, page);
    const key = await mintKey(api, page);
    for (const path of ['docs/deck.pptx', 'docs/book.xlsx']) {
      const d = doc(path);
      await put(api, key, d.path, new Uint8Array(d.bytes), d.contentType);
      await untilIndexed(api, key, 'find', d.marker);
    }

    await searchAndOpen(page, driveId, doc('docs/deck.pptx'));
    await page.waitForURL(`**/${driveId}/docs/deck.pptx#slide-2`);
    const slide = await landing(page);
    expect(slide).toMatchObject({ id: 'slide-2', onScreen: true });
    expect(slide.text).toContain('pptxnotesword');
    await screenshot(page, 'web-screenshots', 'document-slide');

    await searchAndOpen(page, driveId, doc('docs/book.xlsx'));
    await page.waitForURL(`**/${driveId}/docs/book.xlsx#sheet-Budget`);
    const sheet = await landing(page);
    expect(sheet).toMatchObject({ id: 'sheet-Budget', onScreen: true });
    expect(sheet.text).toContain('xlsxmarkerword');
    // The page still offers the original bytes.
    const download = page.getByRole('link', { name: /download/i }).first();
    expect(await download.getAttribute('href')).toMatch(/download/);
    await page.close();
  });
});
