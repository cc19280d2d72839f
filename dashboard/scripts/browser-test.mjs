#!/usr/bin/env node
// Browser test: builds the app, serves it over the fixture results folders, loads every view in
// headless Chromium (Debian's /usr/bin/chromium through playwright-core; never a downloaded
// browser), checks that charts are drawn and the messages appear, and saves screenshots under
// test-output/. Ends with a line "N passed, N failed" and exits non-zero on any failure.
//   npm run test:browser                 build, then test
//   npm run test:browser -- --no-build   test the dist/ already there
//   CHROMIUM=/path/to/chromium (or CHROME_PATH)   another Chromium binary
process.env.GOMAXPROCS ??= '1'; // esbuild (Go) on one core: the machine is shared

import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer } from './serve.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'test-output');
const fixtures = join(root, 'test-fixtures');
const CHROMIUM = process.env.CHROMIUM || process.env.CHROME_PATH || '/usr/bin/chromium';
const FLAGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];
const REST_RGB = [0xd9, 0x48, 0x0f];
const GRPC_RGB = [0x18, 0x64, 0xab];

const results = [];
function record(name, error) {
  results.push({ name, error });
  console.log(error ? `FAIL  ${name}\n      ${String(error.message ?? error).split('\n').join('\n      ')}` : `ok    ${name}`);
}
function assert(cond, message) {
  if (!cond) throw new Error(message);
}

async function buildApp() {
  const { build } = await import('vite');
  await build({ root, configFile: join(root, 'vite.config.ts'), logLevel: 'warn' });
}

/** Pixel statistics of every chart canvas on the page, read in the page. */
async function canvasStats(page) {
  return page.$$eval(
    'section.chart-card canvas',
    (canvases, [rest, grpc]) =>
      canvases.map((canvas) => {
        const { width, height } = canvas;
        const data = canvas.getContext('2d').getImageData(0, 0, width, height).data;
        const colours = new Set();
        let restPx = 0;
        let grpcPx = 0;
        const near = (i, c) => Math.abs(data[i] - c[0]) + Math.abs(data[i + 1] - c[1]) + Math.abs(data[i + 2] - c[2]) < 24;
        for (let i = 0; i < data.length; i += 4) {
          if (data[i + 3] === 0) continue;
          colours.add((data[i] << 16) | (data[i + 1] << 8) | data[i + 2]);
          if (near(i, rest)) restPx++;
          if (near(i, grpc)) grpcPx++;
        }
        const card = canvas.closest('section.chart-card');
        return { key: card.dataset.chart, width, height, distinct: colours.size, restPx, grpcPx };
      }),
    [REST_RGB, GRPC_RGB],
  );
}

async function legends(page) {
  return page.$$eval('section.chart-card', (cards) =>
    Object.fromEntries(cards.map((c) => [c.dataset.chart, [...c.querySelectorAll('.legend-label')].map((l) => l.textContent)])),
  );
}

async function tableRows(page) {
  return page.$$eval('section.chart-card', (cards) =>
    Object.fromEntries(cards.map((c) => [c.dataset.chart, c.querySelectorAll('table.data tbody tr').length])),
  );
}

/** Loads a hash, waits for `charts` chart cards, checks canvases, legends, tables; screenshots. */
async function checkView(page, base, { hash, shot, charts, legend = {}, bothProtocols = true }) {
  await page.goto(`${base}/${hash}`);
  await page.waitForFunction((n) => document.querySelectorAll('section.chart-card canvas').length >= n, charts, { timeout: 15000 });
  await page.waitForTimeout(300); // let Chart.js finish its first resize + draw
  const errors = await page.$$eval('[data-testid=render-error]', (els) => els.map((e) => e.textContent));
  assert(errors.length === 0, `render error: ${errors.join(' | ')}`);
  const stats = await canvasStats(page);
  assert(stats.length === charts, `expected ${charts} charts, found ${stats.length}: ${stats.map((s) => s.key).join(', ')}`);
  for (const s of stats) {
    assert(s.width > 100 && s.height > 100, `${s.key}: canvas is ${s.width}×${s.height}`);
    assert(s.distinct >= 4, `${s.key}: canvas looks blank (${s.distinct} colours)`);
    assert(s.restPx + s.grpcPx > 20, `${s.key}: no protocol-coloured pixels drawn`);
    if (bothProtocols) assert(s.restPx > 5 && s.grpcPx > 5, `${s.key}: expected both protocol colours (REST ${s.restPx} px, gRPC ${s.grpcPx} px)`);
  }
  const seen = await legends(page);
  for (const [key, expected] of Object.entries(legend)) {
    assert(seen[key], `no chart "${key}" (have ${Object.keys(seen).join(', ')})`);
    for (const want of expected) {
      const ok = want instanceof RegExp ? seen[key].some((l) => want.test(l)) : seen[key].includes(want);
      assert(ok, `${key}: legend lacks ${want}; it has: ${seen[key].join(' | ')}`);
    }
  }
  const rows = await tableRows(page);
  for (const [key, n] of Object.entries(rows)) assert(n > 0, `${key}: table under the chart is empty`);
  await page.screenshot({ path: join(out, `${shot}.png`), fullPage: true });
  return { stats, seen };
}

async function main() {
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  if (!process.argv.includes('--no-build')) {
    console.log('building dashboard…');
    await buildApp();
  }
  assert(existsSync(join(root, 'dist', 'index.html')), 'dist/index.html missing after build');
  assert(existsSync(CHROMIUM), `${CHROMIUM} not found: install Debian's chromium (scripts/deps.sh does)`);

  const servers = await Promise.all(
    ['results', 'empty', 'bad-index'].map((d) => startServer({ results: join(fixtures, d), port: 0 })),
  );
  const [base, emptyBase, badIndexBase] = servers.map((s) => `http://127.0.0.1:${s.address().port}`);
  const { chromium } = await import('playwright-core');
  const userDataDir = mkdtempSync(join(tmpdir(), 'tandem-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: FLAGS, // playwright passes --user-data-dir=<the fresh temporary folder> itself
    viewport: { width: 1400, height: 1000 },
    acceptDownloads: true,
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const pageErrors = [];
  page.on('pageerror', (e) => pageErrors.push(e.message));
  page.on('console', (m) => m.type() === 'error' && !/Failed to load resource/.test(m.text()) && pageErrors.push(m.text()));

  const test = async (name, fn) => {
    const before = pageErrors.length;
    try {
      await fn();
      assert(pageErrors.length === before, `errors in the page: ${pageErrors.slice(before).join(' | ')}`);
      record(name);
    } catch (e) {
      record(name, e);
      await page.screenshot({ path: join(out, `FAILED-${name.replace(/[^a-z0-9]+/gi, '-')}.png`), fullPage: true }).catch(() => {});
    }
  };

  try {
    await test('overview draws latency, payload and caching charts', async () => {
      await checkView(page, base, {
        hash: '#/overview', shot: '1-overview', charts: 3,
        legend: {
          'latency-by-cache-state': ['REST · k6 p50', 'REST · k6 p99', 'gRPC · k6 p50', 'gRPC · k6 p99'],
          'payload-size': ['REST · k6', 'gRPC · k6'],
          'caching-improvement': ['REST · k6 p50 latency reduction', 'gRPC · k6 throughput gain'],
        },
      });
      const big = await page.$$eval('.headline .big', (els) => els.map((e) => e.textContent));
      assert(big.length === 4 && big.every((t) => /^\d+\.\d\d×$/.test(t)), `headline numbers: ${big.join(', ')}`);
    });

    await test('concurrency draws p50, p95, p99 and throughput lines per protocol and cache mode', async () => {
      await checkView(page, base, {
        hash: '#/concurrency', shot: '2-concurrency', charts: 4,
        legend: Object.fromEntries(
          ['p50', 'p95', 'p99', 'throughput'].map((k) => [
            `concurrency-${k}`,
            ['REST · k6 · no cache', 'REST · k6 · hybrid warm', 'gRPC · k6 · local warm', 'gRPC · k6 · redis warm'],
          ]),
        ),
      });
    });

    await test('payload scaling draws fitted A + B·N lines with their values', async () => {
      await checkView(page, base, {
        hash: '#/payload', shot: '3-payload-scaling', charts: 2,
        legend: {
          'payload-scaling': [/^REST · k6 · no cache: [\d.]+ \+ [\d.e-]+·N ms, R² /, /^gRPC · k6 · hybrid warm: /],
          'body-bytes-by-page-size': ['REST · k6', 'gRPC · k6'],
        },
      });
    });

    await test('cache draws hit ratios per level and cold/warm/none side by side', async () => {
      await checkView(page, base, {
        hash: '#/cache', shot: '4-cache', charts: 3,
        legend: {
          'hit-ratio': ['REST · k6 L1', 'REST · k6 L2', 'gRPC · k6 overall'],
          'temperature-p50': ['REST · k6 no cache', 'REST · k6 cold', 'gRPC · k6 warm'],
          'temperature-throughput': ['gRPC · k6 cold'],
        },
      });
    });

    await test('compare shows two runs, ratios and environments', async () => {
      await checkView(page, base, {
        hash: '#/compare', shot: '5-compare', charts: 2,
        legend: { 'compare-p50': ['REST · k6', 'gRPC · k6'], 'compare-throughput': ['REST · k6', 'gRPC · k6'] },
      });
      const title = await page.textContent('.view-title');
      assert(/20261124T100000Z-quick-1111111 \(A\) vs 20261125T090000Z-quick-2222222 \(B\)/.test(title), `view title: ${title}`);
      const differs = await page.$$eval('[data-testid=environments] tr.differs th', (ths) => ths.map((t) => t.textContent));
      assert(differs.includes('jdk') && differs.includes('gitCommit'), `environment differences: ${differs.join(', ')}`);
    });

    await test("the bench's example run draws every view", async () => {
      const run = 'run=20261122T070000Z-quick-a262159';
      const views = [['overview', 3], ['concurrency', 4], ['payload', 2], ['cache', 3]];
      for (const [view, charts] of views) {
        await checkView(page, base, { hash: `#/${view}?${run}`, shot: `12-example-${view}`, charts });
      }
      await checkView(page, base, { hash: `#/overview?${run}&tool=all`, shot: '12-example-listgroups-all-tools', charts: 3 });
      const seen = await legends(page);
      assert(seen['latency-by-cache-state'].includes('gRPC · ghz p50'), `ghz missing: ${seen['latency-by-cache-state'].join(' | ')}`);
      await checkView(page, base, { hash: `#/concurrency?${run}&op=Hello`, shot: '12-example-hello', charts: 4 });
    });

    await test('the tls dimension: a Transport filter, TLS series and headline cards, only where a run has TLS cells', async () => {
      const run = 'run=20261122T070000Z-quick-a262159';
      await page.goto(`${base}/#/overview?${run}&c=50&tool=all&tls=1`);
      await page.waitForSelector('section[data-chart=latency-by-cache-state] canvas', { timeout: 15000 });
      await page.waitForTimeout(300);
      const transport = await page.$eval('select[name=tls]', (s) => ({ value: s.value, options: [...s.options].map((o) => o.textContent) }));
      assert(transport.value === 'tls' && transport.options.join('|') === 'plain TCP|TLS', JSON.stringify(transport));
      const seen = await legends(page);
      for (const want of ['REST · k6 · TLS p50', 'gRPC · k6 · TLS p50', 'gRPC · ghz · TLS p50']) {
        assert(seen['latency-by-cache-state'].includes(want), `legend lacks ${want}: ${seen['latency-by-cache-state'].join(' | ')}`);
      }
      const cells = await page.$$eval('section[data-chart=latency-by-cache-state] table.data tbody tr td:first-child', (tds) => tds.map((t) => t.textContent));
      assert(cells.length > 0 && cells.every((t) => t.endsWith(' · TLS')), `table protocol column: ${cells.join(' | ')}`);
      const headlines = await page.textContent('[data-testid=headlines]');
      assert(/REST · TLS ÷ plain p50 latency/.test(headlines) && /gRPC · TLS ÷ plain throughput/.test(headlines), headlines);
      await page.screenshot({ path: join(out, '13-example-tls.png'), fullPage: true });
      // back to plain through the filter: the hash drops tls, the series lose the suffix
      await page.selectOption('select[name=tls]', 'plain');
      await page.waitForFunction(() => !location.hash.includes('tls=1'));
      await page.waitForTimeout(300);
      const plain = await legends(page);
      assert(plain['latency-by-cache-state'].includes('REST · k6 p50'), `plain legend: ${plain['latency-by-cache-state'].join(' | ')}`);
      // a run written before the tls dimension: no Transport filter, no TLS cards
      await page.goto(`${base}/#/overview?run=20261124T100000Z-quick-1111111`);
      await page.waitForSelector('section.chart-card canvas', { timeout: 15000 });
      assert((await page.$('select[name=tls]')) === null, 'Transport filter shown for a run without TLS cells');
      assert(!/TLS/.test(await page.textContent('[data-testid=headlines]')), 'TLS headline cards shown for a run without TLS cells');
    });

    await test('unreadable runs are listed with their reasons, the others still work', async () => {
      await page.goto(`${base}/#/overview`);
      const box = await page.waitForSelector('[data-testid=unreadable-runs]', { timeout: 10000 });
      await box.click(); // open the <details>
      const text = await box.textContent();
      assert(/3 runs could not be read/.test(text), `summary: ${text}`);
      assert(/20261121T070000Z-quick-broken: unreadable — not valid JSON/.test(text), `malformed run not explained: ${text}`);
      assert(/20261123T070000Z-quick-b000000: unreadable — written with schema version 2, newer than this dashboard reads/.test(text), `newer run not explained: ${text}`);
      assert(/20261120T080000Z-partial: unreadable — \$\.cells\[3\]\.summary: expected an object, missing/.test(text), `partial run not explained: ${text}`);
      const options = await page.$$eval('select[name=run] option', (os) => os.map((o) => o.textContent));
      assert(options.filter((o) => o.endsWith('unreadable')).length === 3, `run picker: ${options.join(' | ')}`);
      await page.waitForSelector('section.chart-card canvas');
      await page.screenshot({ path: join(out, '6-unreadable-runs.png'), fullPage: true });
    });

    await test('choosing an unreadable run shows its reason instead of a blank page', async () => {
      await page.goto(`${base}/#/cache?run=20261123T070000Z-quick-b000000`);
      const msg = await page.waitForSelector('[data-testid=selected-unreadable]', { timeout: 10000 });
      const text = await msg.textContent();
      assert(/unreadable/.test(text) && /schema version 2/.test(text), text);
      await page.screenshot({ path: join(out, '7-selected-unreadable.png'), fullPage: true });
      await page.selectOption('select[name=run]', '20261124T100000Z-quick-1111111');
      await page.waitForSelector('section.chart-card canvas', { timeout: 10000 });
    });

    await test('the URL keeps view and filters, and filter changes update it', async () => {
      await page.goto(`${base}/#/concurrency?op=ListGroups&n=20&tool=all&temp=cold`);
      await page.waitForSelector('section.chart-card canvas', { timeout: 10000 });
      const values = await page.$$eval('.filter-bar select', (ss) => Object.fromEntries(ss.map((s) => [s.name, s.value])));
      assert(values.op === 'ListGroups' && values.n === '20' && values.tool === 'all' && values.temp === 'cold', JSON.stringify(values));
      const seen = await legends(page);
      assert(seen['concurrency-p50'].includes('gRPC · ghz · hybrid cold'), `ghz series missing with tool=all: ${seen['concurrency-p50'].join(' | ')}`);
      await page.selectOption('select[name=n]', '50');
      await page.waitForFunction(() => location.hash.includes('n=50'));
      const hash = await page.evaluate(() => location.hash);
      assert(hash.startsWith('#/concurrency?') && /op=ListGroups/.test(hash) && /tool=all/.test(hash), hash);
      await page.click('nav a:text("Cache")');
      await page.waitForFunction(() => location.hash.startsWith('#/cache'));
      const cacheHash = await page.evaluate(() => location.hash);
      assert(/op=ListGroups/.test(cacheHash) && /n=50/.test(cacheHash), `filters lost on view change: ${cacheHash}`);
      await page.screenshot({ path: join(out, '8-url-filters.png'), fullPage: true });
    });

    await test('CSV and PNG export download the plotted data and the picture', async () => {
      await page.goto(`${base}/#/overview`);
      await page.waitForSelector('section.chart-card canvas', { timeout: 10000 });
      const card = page.locator('section[data-chart=latency-by-cache-state]');
      const [csv] = await Promise.all([page.waitForEvent('download'), card.locator('button:text("CSV")').click()]);
      const text = readFileSync(await csv.path(), 'utf8');
      assert(text.startsWith('Protocol,Tool,Cache mode,Temperature,p50 (ms),p99 (ms)\r\n'), `CSV header: ${text.slice(0, 80)}`);
      assert(text.trim().split('\r\n').length >= 8, `CSV has ${text.trim().split('\r\n').length} lines`);
      const [png] = await Promise.all([page.waitForEvent('download'), card.locator('button:text("PNG")').click()]);
      const bytes = readFileSync(await png.path());
      assert(bytes.subarray(1, 4).toString() === 'PNG' && bytes.length > 5000, `PNG export: ${bytes.length} bytes`);
      await png.saveAs(join(out, '9-exported-chart.png'));
      assert(png.suggestedFilename().endsWith('.png'), png.suggestedFilename());
    });

    await test('no results yet: a page that says to run make bench', async () => {
      await page.goto(`${emptyBase}/#/overview`);
      const msg = await page.waitForSelector('[data-testid=empty-state]', { timeout: 10000 });
      const text = await msg.textContent();
      assert(/No results yet/.test(text) && /make bench/.test(text), text);
      await page.screenshot({ path: join(out, '10-empty.png'), fullPage: true });
    });

    await test('a broken results index is reported, not a blank page', async () => {
      await page.goto(`${badIndexBase}/#/overview`);
      const msg = await page.waitForSelector('[data-testid=index-error]', { timeout: 10000 });
      const text = await msg.textContent();
      assert(/not valid JSON/.test(text), text);
      await page.screenshot({ path: join(out, '11-bad-index.png'), fullPage: true });
    });
  } finally {
    await context.close().catch(() => {});
    await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
    rmSync(userDataDir, { recursive: true, force: true });
  }
}

main()
  .catch((e) => record('browser test setup', e))
  .finally(() => {
    const failed = results.filter((r) => r.error).length;
    console.log(`screenshots: ${out}`);
    console.log(`${results.length - failed} passed, ${failed} failed`);
    process.exit(failed > 0 || results.length === 0 ? 1 : 0);
  });
