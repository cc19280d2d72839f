#!/usr/bin/env node
// Asks headless Chromium whether a served dashboard shows a given bench run: the run is selected
// in the run picker and at least one chart is drawn with something on it. Used by the README test
// (scripts/tests/test_first_five_minutes.py) after `make bench PROFILE=smoke` and `make dashboard`.
//   node dashboard/scripts/shows-run.mjs http://127.0.0.1:5173 RUN_ID [SCREENSHOT.png]
// Exits 0 and prints "shows RUN_ID" when it does; 1 with the reason when it does not.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const [url, runId, screenshot] = process.argv.slice(2);
if (!url || !runId) {
  console.error('usage: shows-run.mjs URL RUN_ID [SCREENSHOT.png]');
  process.exit(2);
}
const CHROMIUM = process.env.CHROMIUM || process.env.CHROME_PATH || '/usr/bin/chromium';
const FLAGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];

const userDataDir = mkdtempSync(join(tmpdir(), 'tandem-shows-run-'));
const context = await chromium.launchPersistentContext(userDataDir, {
  executablePath: CHROMIUM, headless: true, args: FLAGS, viewport: { width: 1400, height: 1000 },
});
let failure = null;
try {
  const page = await context.newPage();
  const pageErrors = [];
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  await page.goto(url, { waitUntil: 'networkidle', timeout: 60_000 });
  const picker = page.locator('select', { has: page.locator(`option[value="${runId}"]`) }).first();
  await picker.waitFor({ state: 'attached', timeout: 30_000 }).catch(async () => {
    const text = ((await page.textContent('body')) ?? '').replace(/\s+/g, ' ').slice(0, 300);
    throw new Error(`no run picker offers ${runId}; the page says: ${text}`);
  });
  if ((await picker.inputValue()) !== runId) await picker.selectOption(runId);
  // A chart counts as drawn when its canvas holds opaque pixels of more than one colour.
  await page.waitForFunction(() => [...document.querySelectorAll('canvas')].some((c) => {
    const data = c.getContext('2d')?.getImageData(0, 0, c.width, c.height).data;
    if (!data) return false;
    const colours = new Set();
    for (let i = 0; i < data.length && colours.size < 3; i += 16) if (data[i + 3]) colours.add(data[i] * 65536 + data[i + 1] * 256 + data[i + 2]);
    return colours.size >= 2;
  }), null, { timeout: 30_000 });
  if (pageErrors.length) throw new Error(`the page threw: ${pageErrors.join('; ')}`);
  if (screenshot) await page.screenshot({ path: screenshot, fullPage: true });
  console.log(`shows ${runId}`);
} catch (e) {
  failure = e;
} finally {
  await context.close();
  rmSync(userDataDir, { recursive: true, force: true });
}
if (failure) {
  console.error(`does not show ${runId}: ${failure.message ?? failure}`);
  process.exit(1);
}
