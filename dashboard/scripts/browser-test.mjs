#!/usr/bin/env node
// Browser test: builds the app, serves it over the fixture results folders, loads every view in
// headless Chromium (Debian's /usr/bin/chromium through playwright-core; never a downloaded
// browser), checks that charts are drawn and the messages appear, and saves screenshots under
// test-output/. Ends with a line "N passed, N failed" and exits non-zero on any failure.
//   npm run test:browser                 build, then test
//   npm run test:browser -- --no-build   test the dist/ already there
//   CHROMIUM=/path/to/chromium (or CHROME_PATH)   another Chromium binary
// Why one file of over 500 lines: it is one script in the order it runs (build, three servers, one
// Chromium page), then a flat list of checks, one per screen of the app, each a few lines over the
// page-reading helpers at the top (canvasStats, checkView). Splitting the list would only move the
// checks away from the setup they share; a new screen adds a check here.
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
const ERROR_BAR_RGB = [0x11, 0x11, 0x11]; // style.ts ERROR_BAR_COLOUR
const FLAGGED_RGB = [0xb4, 0xb4, 0xb4]; // style.ts FLAGGED_COLOUR
const RUN_A = '20261124T100000Z-quick-1111111';
const RUN_B = '20261125T090000Z-quick-2222222';
const RUN_NEWER = '20261123T070000Z-quick-b000000';
const RUN_OLDER = '20261122T070000Z-quick-a262159';
const RUN_WATCH = '20261119T060000Z-watch-3333333';

const results = [];
function record(name, error) {
  results.push({ name, error });
  console.log(error ? `FAIL  ${name}\n      ${String(error.message ?? error).split('\n').join('\n      ')}` : `ok    ${name}`);
}
function assert(cond, message) {
  if (!cond) throw new Error(message);
}

/**
 * The app built into a directory of its own, not dist/: make dashboard (which the README test runs
 * while this test may) builds and serves dist/, and Vite empties its output first.
 */
async function buildApp() {
  const { build } = await import('vite');
  const outDir = mkdtempSync(join(tmpdir(), 'tandem-dashboard-'));
  await build({ root, configFile: join(root, 'vite.config.ts'), logLevel: 'warn', build: { outDir, emptyOutDir: true } });
  return outDir;
}

/** Pixel statistics of every chart canvas on the page, read in the page. */
async function canvasStats(page) {
  return page.$$eval(
    'section.chart-card canvas',
    (canvases, [rest, grpc, errorBar, flagged]) =>
      canvases.map((canvas) => {
        const { width, height } = canvas;
        const data = canvas.getContext('2d').getImageData(0, 0, width, height).data;
        const colours = new Set();
        let restPx = 0;
        let grpcPx = 0;
        let errorBarPx = 0;
        let greyPx = 0;
        const near = (i, c, d = 24) => Math.abs(data[i] - c[0]) + Math.abs(data[i + 1] - c[1]) + Math.abs(data[i + 2] - c[2]) < d;
        for (let i = 0; i < data.length; i += 4) {
          if (data[i + 3] === 0) continue;
          colours.add((data[i] << 16) | (data[i + 1] << 8) | data[i + 2]);
          if (near(i, rest)) restPx++;
          if (near(i, grpc)) grpcPx++;
          // nothing else on a chart is this dark: text (#333) only gets lighter where it is smoothed
          if (near(i, errorBar, 30)) errorBarPx++;
          if (near(i, flagged, 12)) greyPx++;
        }
        const card = canvas.closest('section.chart-card');
        return { key: card.dataset.chart, width, height, distinct: colours.size, restPx, grpcPx, errorBarPx, greyPx };
      }),
    [REST_RGB, GRPC_RGB, ERROR_BAR_RGB, FLAGGED_RGB],
  );
}

/**
 * How many pixel columns of a chart's canvas hold both colours: bars stacked one on another share
 * their columns, bars side by side share none.
 */
async function sharedColumns(page, key, a, b) {
  return page.$eval(`section[data-chart="${key}"] canvas`, (canvas, [a, b]) => {
    const { width, height } = canvas;
    const data = canvas.getContext('2d').getImageData(0, 0, width, height).data;
    const near = (i, c) => Math.abs(data[i] - c[0]) + Math.abs(data[i + 1] - c[1]) + Math.abs(data[i + 2] - c[2]) < 12;
    let shared = 0;
    for (let x = 0; x < width; x++) {
      let hasA = false;
      let hasB = false;
      for (let y = 0; y < height && !(hasA && hasB); y++) {
        const i = (y * width + x) * 4;
        hasA ||= near(i, a);
        hasB ||= near(i, b);
      }
      if (hasA && hasB) shared++;
    }
    return shared;
  }, [a, b]);
}

/** A protocol's colour lightened towards white, as style.ts protocolColour does for a shade. */
const shaded = (rgb, shade) => rgb.map((c) => Math.round(c + (255 - c) * shade));

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

async function chartNotes(page, key) {
  return page.$$eval(`section[data-chart="${key}"] .chart-notes li`, (lis) => lis.map((l) => l.textContent));
}

/**
 * Every number on the page is printed by the format module: no float noise such as
 * "0.27335075000000003" or "1.3488720723413612×" (at most four decimals, outside identifiers).
 */
async function assertNumbersFormatted(page) {
  const text = await page.$eval('main', (m) => m.innerText);
  const noisy = text.match(/\d\.\d{5,}/g);
  assert(!noisy, `unformatted numbers on the page: ${noisy?.slice(0, 5).join(', ')}`);
}

/**
 * Loads a hash, waits for `charts` chart cards, checks canvases, legends, tables, error bars (the
 * charts whose spec has intervals must show whiskers) and number formatting; screenshots.
 */
async function checkView(page, base, { hash, shot, charts, legend = {}, bothProtocols = true, noErrorBars = [] }) {
  await page.goto(`${base}/${hash}`);
  await page.waitForFunction((n) => document.querySelectorAll('section.chart-card canvas').length >= n, charts, { timeout: 15000 });
  await page.waitForTimeout(300); // let Chart.js finish its first resize + draw
  const errors = await page.$$eval('[data-testid=render-error]', (els) => els.map((e) => e.textContent));
  assert(errors.length === 0, `render error: ${errors.join(' | ')}`);
  const stats = await canvasStats(page);
  assert(stats.length === charts, `expected ${charts} charts, found ${stats.length}: ${stats.map((s) => s.key).join(', ')}`);
  const withBars = new Set(await page.$$eval('section.chart-card[data-error-bars=true]', (cs) => cs.map((c) => c.dataset.chart)));
  for (const s of stats) {
    assert(s.width > 100 && s.height > 100, `${s.key}: canvas is ${s.width}×${s.height}`);
    assert(s.distinct >= 4, `${s.key}: canvas looks blank (${s.distinct} colours)`);
    assert(s.restPx + s.grpcPx > 20, `${s.key}: no protocol-coloured pixels drawn`);
    if (bothProtocols) assert(s.restPx > 5 && s.grpcPx > 5, `${s.key}: expected both protocol colours (REST ${s.restPx} px, gRPC ${s.grpcPx} px)`);
    if (withBars.has(s.key)) assert(s.errorBarPx > 30, `${s.key}: no error bars drawn (${s.errorBarPx} px)`);
    if (noErrorBars.includes(s.key)) assert(!withBars.has(s.key) && s.errorBarPx < 10, `${s.key}: error bars where run.json has no interval (${s.errorBarPx} px)`);
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
  await assertNumbersFormatted(page);
  await page.screenshot({ path: join(out, `${shot}.png`), fullPage: true });
  return { stats: Object.fromEntries(stats.map((s) => [s.key, s])), seen, withBars };
}

async function main() {
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  let distDir = join(root, 'dist');  // with --no-build, the build already there
  if (!process.argv.includes('--no-build')) {
    console.log('building dashboard…');
    distDir = await buildApp();
  }
  assert(existsSync(join(distDir, 'index.html')), `${distDir}/index.html missing after build`);
  assert(existsSync(CHROMIUM), `${CHROMIUM} not found: install Debian's chromium (scripts/deps.sh does)`);

  const servers = await Promise.all(
    ['results', 'empty', 'bad-index'].map((d) => startServer({ distDir, results: join(fixtures, d), port: 0 })),
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
    await test('overview: headline cards with intervals and verdicts, latency and throughput with error bars', async () => {
      await checkView(page, base, {
        hash: `#/overview?run=${RUN_A}`, shot: '1-overview', charts: 3,
        legend: {
          'latency-by-cache-state': ['REST · k6 p50', 'REST · k6 p99', 'gRPC · k6 p50', 'gRPC · k6 p99'],
          'throughput-by-cache-state': ['REST · k6', 'gRPC · k6'],
          'payload-size': ['REST · k6', 'gRPC · k6'],
        },
      });
      const cards = await page.$$eval('.headline', (els) =>
        els.map((e) => ({
          name: e.dataset.headline,
          verdict: e.dataset.verdict,
          muted: e.classList.contains('muted'),
          big: e.querySelector('.big').textContent,
          verdictText: e.querySelector('.verdict').textContent,
        })),
      );
      const by = Object.fromEntries(cards.map((c) => [c.name, c]));
      assert(cards.length === 10, `headline cards: ${cards.map((c) => c.name).join(', ')}`);
      assert(new Set(cards.map((c) => c.verdict)).size === 4, `verdicts: ${cards.map((c) => c.verdict).join(', ')}`);
      // a finding: value with its interval, not muted
      const p50 = by.grpcOverRestP50Warm;
      assert(/^0\.\d\d\d?× \[0\.\d\d\d?–0\.\d\d\d?\]$/.test(p50.big) && p50.verdict === 'finding' && !p50.muted, JSON.stringify(p50));
      assert(/^Finding: the 95 % interval excludes 1$/.test(p50.verdictText), p50.verdictText);
      // inconclusive, flagged and missing: muted, with the reason in plain words
      const inc = by.tlsOverPlainP50Grpc;
      assert(inc.muted && /^Inconclusive: the 95 % interval 0\.96–1\.15 includes 1: no difference shown$/.test(inc.verdictText), JSON.stringify(inc));
      const flagged = by.tlsOverPlainP50Rest;
      assert(flagged.muted && /^Flagged: only flagged cell pairs were available \(rest-k6-GetGroup-hybrid-warm-c1-tls is flagged \(generator-saturated\)\)/.test(flagged.verdictText), JSON.stringify(flagged));
      const missing = by.tlsOverPlainThroughputRest;
      assert(missing.muted && missing.big === '—' && /^Missing: no TLS cell at 50 users in this profile/.test(missing.verdictText), JSON.stringify(missing));
      assert(cards.filter((c) => c.muted).every((c) => c.verdict !== 'finding'), 'a finding is muted');
      // the bench leaves a cell out of the headline ratios only when every window is flagged
      // (headlineEligible false); of the others it drops the flagged windows
      const summary = (await page.textContent('[data-testid=flagged-summary]')).trim();
      const fixtureA = JSON.parse(readFileSync(join(fixtures, 'results', RUN_A, 'run.json'), 'utf8'));
      const leftOut = fixtureA.cells.filter((c) => !c.headlineEligible).length;
      assert(leftOut === 5 && fixtureA.cells.some((c) => c.headlineEligible && c.flags.some((f) => f.code === 'generator-saturated')), 'fixture: a cell with some windows flagged');
      assert(/^6 of 39 cells are flagged by the bench/.test(summary), summary);
      const said = /(\d+) of them[^.;]* left out of the headline ratios/.exec(summary);
      assert(said && Number(said[1]) === leftOut && /drop only (its|their) flagged windows/.test(summary), `left out by the bench: ${leftOut}; the page: ${summary}`);
      // the pairs behind a headline, with the one left out and why
      await page.click('[data-headline=grpcOverRestThroughputWarm] .headline-pairs summary');
      const pairs = await page.textContent('[data-headline=grpcOverRestThroughputWarm] .headline-pairs');
      assert(/2 cell pairs, 1 left out/.test(pairs) && /left out: grpc-ghz-GetGroup-hybrid-warm-c50 is flagged \(generator-saturated\)/.test(pairs), pairs);
      await page.screenshot({ path: join(out, '1-overview-headlines.png'), clip: { x: 0, y: 0, width: 1400, height: 1000 } });
    });

    await test('a flagged cell is greyed with its reason: the ghz cell (generator-saturated) with all tools', async () => {
      const { stats } = await checkView(page, base, {
        hash: `#/overview?run=${RUN_A}&tool=all`, shot: '1-overview-all-tools', charts: 3,
        legend: { 'throughput-by-cache-state': ['REST · k6', 'REST · oha', 'gRPC · k6', 'gRPC · ghz'] },
      });
      assert(stats['throughput-by-cache-state'].greyPx > 300, `no grey bar drawn (${stats['throughput-by-cache-state'].greyPx} px)`);
      const notes = await chartNotes(page, 'throughput-by-cache-state');
      assert(notes.length === 1 && /^Greyed: grpc-ghz-GetGroup-hybrid-warm-c50 — start 1 round 1: generator used 9\d % of its 1 core \(≥ 95 %\) \(and 3 more windows flagged generator-saturated\)$/.test(notes[0]), notes.join(' | '));
      const row = await page.$eval('section[data-chart=throughput-by-cache-state] tr.flagged', (tr) => ({ title: tr.title, text: tr.textContent }));
      assert(/^greyed: start 1 round 1: generator used/.test(row.title) && /ghz/.test(row.text), JSON.stringify(row));
    });

    await test('where the difference comes from: each step with its interval on a log scale, a grey inconclusive step, shares of the gap', async () => {
      const { stats } = await checkView(page, base, {
        hash: `#/decomposition?run=${RUN_A}`, shot: '1b-decomposition', charts: 3,
        legend: { 'steps-server-cpu': ['REST steps', 'to gRPC'], 'steps-throughput': ['REST steps', 'to gRPC'], 'gzip-server-cpu': ['REST', 'gRPC'] },
      });
      // HTTP/1.1 → HTTP/2 on CPU is inconclusive in the fixture: grey bar and a note saying why
      const grey = stats['steps-server-cpu'].greyPx;
      const baseline = stats['steps-throughput'].greyPx; // no grey step there: the label box and anti-aliasing only
      assert(grey > baseline + 300, `no grey step drawn (${grey} px against ${baseline} px in an all-finding chart)`);
      const notes = await chartNotes(page, 'steps-server-cpu');
      assert(notes.length === 1 && /^Greyed: HTTP\/1\.1 → HTTP\/2 — inconclusive: the 95 % interval \[0\.78, 1\.04\] includes 1/.test(notes[0]), notes.join(' | '));
      const rows = await page.$$eval('section[data-chart=steps-server-cpu] table.data tbody tr',
        (trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)));
      assert(rows.length === 5, `rows: ${JSON.stringify(rows)}`);
      // shares of the gap in logarithms: ln 0.87, ln 0.9, ln 0.52 over ln(0.87 · 0.9 · 0.52)
      const shares = rows.slice(0, 3).map((r) => r[4]);
      assert(JSON.stringify(shares) === JSON.stringify(['15.5%', '11.7%', '72.8%']), `shares: ${shares}`);
      assert(rows[3][0] === 'all three (product)' && rows[3][1] === '0.407' && rows[3][4] === '100%', `product row: ${rows[3]}`);
      // a run recorded before the steps' own direct figure: the all-pairs one, named as such
      assert(rows[4][0].startsWith('gRPC ÷ REST over every warm pair'), `direct row: ${rows[4]}`);
      assert((await page.$$('[data-testid=gzip-headlines] .headline')).length === 2, 'gzip headline cards');
      assert((await page.$$('[data-testid=revalidation-headlines] .headline')).length === 2, 'revalidation headline cards');
      // the goals the fixture has, each with the status its interval gives
      const goals = await page.$$eval('[data-testid=hot-path-goals] [data-goal]',
        (ds) => ds.map((d) => `${d.getAttribute('data-goal')}=${d.getAttribute('data-goal-status')}`));
      assert(JSON.stringify(goals) === JSON.stringify(['getGroupOverHelloServerCpuRest=not met',
        'users500Over50ThroughputRest=undecided', 'getGroupOverHelloServerCpuGrpc=met', 'getGroupOverHelloP50Grpc=met']), `goals: ${goals}`);
      // a goal card reads as its goal's status, not as the test against 1: an undecided goal whose
      // interval excludes 1 is no finding, a met goal whose interval includes 1 is not greyed
      const goalCards = await page.$$eval('[data-testid=hot-path-goals] [data-goal]', (ds) => ds.map((d) => {
        const h = d.querySelector('.headline');
        return { goal: d.dataset.goal, status: d.dataset.goalStatus, muted: h.classList.contains('muted'), verdict: h.querySelector('.verdict').textContent };
      }));
      const wrong = goalCards.filter((c) => (c.status === 'undecided'
        ? !c.muted || /finding/i.test(c.verdict) || !/^Undecided/.test(c.verdict)
        : c.muted || !c.verdict.startsWith(c.status === 'met' ? 'Goal met' : 'Goal not met')));
      assert(wrong.length === 0, `goal cards that do not read as their goal's status: ${JSON.stringify(wrong)}`);
      assert(goalCards.some((c) => c.status === 'met' && c.goal === 'getGroupOverHelloP50Grpc'), 'no met goal whose interval includes 1');
      // a run without the cells says how to get them
      await page.goto(`${base}/#/decomposition?run=${RUN_B}`);
      const notice = await page.textContent('[data-testid=no-decomposition]');
      assert(/make bench PROFILE=protocols/.test(notice), notice);
    });

    await test('concurrency: p50, p95, p99 and throughput lines, error bars where run.json has intervals', async () => {
      await checkView(page, base, {
        hash: `#/concurrency?run=${RUN_A}`, shot: '2-concurrency', charts: 4, noErrorBars: ['concurrency-p95'],
        legend: Object.fromEntries(
          ['p50', 'p95', 'p99', 'throughput'].map((k) => [
            `concurrency-${k}`,
            ['REST · k6 · no cache', 'REST · k6 · hybrid warm', 'gRPC · k6 · local warm', 'gRPC · k6 · redis warm'],
          ]),
        ),
      });
    });

    await test('latency: the percentile spectrum and latency vs throughput with knees and greyed overloaded points', async () => {
      const { stats } = await checkView(page, base, {
        hash: `#/latency?run=${RUN_A}`, shot: '3-latency', charts: 2,
        legend: {
          'latency-spectrum': ['REST · k6 · hybrid warm', 'REST · k6 · no cache', 'gRPC · k6 · hybrid cold', 'gRPC · k6 · redis warm'],
          'latency-vs-throughput': ['REST · k6 p50', 'REST · k6 p99', 'gRPC · k6 p50', 'gRPC · k6 p99'],
        },
      });
      const notes = await chartNotes(page, 'latency-vs-throughput');
      // the knee is the last rate within the limits, as the bench puts it
      assert(notes[0] === 'REST · k6 knee at 10,000 req/s (target 10,000/s): p99 313 ms above 50 ms at 11000/s; 10000/s was the last rate within limits', notes[0]);
      assert(notes[1] === 'gRPC · k6 knee at 8,110 req/s (target 8,000/s): p99 318 ms above 50 ms at 12000/s; 8000/s was the last rate within limits', notes[1]);
      assert(notes.some((n) => /^Greyed: grpc-k6-GetGroup-hybrid-warm-c200-r16000 — start 1 round 1: \d[\d,]* arrivals not started/.test(n)), notes.join(' | '));
      assert(stats['latency-vs-throughput'].greyPx > 100, `overloaded points not greyed (${stats['latency-vs-throughput'].greyPx} px)`);
      const spectrum = await page.$$eval('section[data-chart=latency-spectrum] table.data thead th', (ths) => ths.map((t) => t.textContent));
      assert(spectrum.includes('p99.9 (ms)') && spectrum.includes('p99.99 (ms)'), spectrum.join(', '));
      // the spectrum compares the cells the filters select: all tools adds ghz and oha
      await checkView(page, base, {
        hash: `#/latency?run=${RUN_A}&tool=all`, shot: '3-latency-all-tools', charts: 2,
        legend: { 'latency-spectrum': ['REST · oha · hybrid warm', 'gRPC · ghz · hybrid warm'] },
      });
    });

    await test('under overload: goodput vs offered load with intervals, refusals and accepted p99, the goals with their status', async () => {
      const pair = 'overload-GetGroup-hybrid-warm';
      const { stats } = await checkView(page, base, {
        hash: `#/overload?run=${RUN_A}`, shot: '3-overload', charts: 3,
        legend: {
          [`overload-goodput-${pair}`]: ['REST · oha goodput', 'gRPC · ghz goodput'],
          [`overload-refusals-${pair}`]: ['REST · oha refused', 'gRPC · ghz refused'],
          [`overload-p99-${pair}`]: ['REST · oha p99', 'REST · oha p99 in the service', 'gRPC · ghz p99',
            'gRPC · ghz p99 in the service'],
        },
        noErrorBars: [`overload-refusals-${pair}`],
      });
      assert(stats[`overload-goodput-${pair}`].greyPx > 20, 'the rate-short step is not greyed');
      const goals = await page.$$eval('[data-testid=overload-goals] tr[data-goal]', (rows) => rows.map((r) => [r.dataset.goal, r.dataset.goalStatus]));
      assert(goals.length === 10, `goals: ${JSON.stringify(goals)}`);
      const status = Object.fromEntries(goals);
      assert(status['rest-goodputAt2xOverPeak'] === 'undecided' && status['grpc-goodputAt2xOverPeak'] === 'not met'
        && status['rest-l1Flushes'] === 'met', JSON.stringify(status));
      // a run without overload cells says how to get them
      await page.goto(`${base}/#/overload?run=${RUN_B}`);
      await page.waitForSelector('[data-testid=no-overload]', { timeout: 10000 });
    });

    await test('a watch run (no cells): the Overview says where its records are, the Watches view charts and lists them', async () => {
      await page.goto(`${base}/#/overview?run=${RUN_WATCH}`);
      const notice = await (await page.waitForSelector('[data-testid=has-watch]', { timeout: 10000 })).textContent();
      assert(/4 WatchGroup records and no other cells/.test(notice), notice);
      await page.click('[data-testid=has-watch] a');
      const { stats } = await checkView(page, base, {
        hash: `#/watch?run=${RUN_WATCH}`, shot: '3-watch', charts: 1,
        legend: { 'watch-latency': ['REST p50', 'REST p99', 'gRPC p50', 'gRPC p99'] },
        noErrorBars: ['watch-latency'],
      });
      assert(stats['watch-latency'].greyPx > 20, 'the record that missed changes is not greyed');
      const rows = await page.$$eval('section[data-chart="watch-latency"] table.data tbody tr', (trs) => trs.map((tr) => ({
        cells: [...tr.querySelectorAll('td')].map((td) => td.textContent), title: tr.getAttribute('title') })));
      assert(rows.length === 4, `watch rows: ${JSON.stringify(rows)}`);
      // p99 and max as the end-of-run text prints them (half away from zero: 344.5 is 345); none below 1,000 changes
      assert(JSON.stringify(rows.map((r) => [r.cells[9], r.cells[10], r.cells[11]])) === JSON.stringify([['73.3', '247', '585'], ['77', '171', '345'], ['126', '—', '452'], ['65.4', '153', '296']]),
        JSON.stringify(rows.map((r) => r.cells)));
      assert(rows[2].title === 'greyed: 3 changes missed, 1 error', JSON.stringify(rows[2]));
      const notes = await chartNotes(page, 'watch-latency');
      assert(notes.some((n) => /no p99 — 960 changes, a p99 needs 1,000/.test(n)), notes.join(' | '));
      // a run without watches says how to get them
      await page.goto(`${base}/#/watch?run=${RUN_B}`);
      await page.waitForSelector('[data-testid=no-watch]', { timeout: 10000 });
    });

    await test('over time: p50/p99 per 250 ms slice, one line per window, a flagged window greyed with its reason', async () => {
      const { stats } = await checkView(page, base, {
        hash: `#/timeline?run=${RUN_A}&cell=rest-k6-Hello-none-none-c50`, shot: '4-over-time', charts: 2, bothProtocols: false,
        legend: {
          'timeline-latency': ['start 1 · round 1', 'start 1 · round 2 (flagged)', 'start 2 · round 1', 'start 2 · round 2'],
          'timeline-rps': ['start 1 · round 2 (flagged)'],
        },
      });
      assert(stats['timeline-latency'].greyPx > 100, `flagged window not greyed (${stats['timeline-latency'].greyPx} px)`);
      const notes = await chartNotes(page, 'timeline-latency');
      assert(notes.join('|') === 'Greyed: start 1 · round 2 — processes outside the bench used 0.31 cores (> 0.2); generator used 97 % of its 1 core (≥ 95 %)', notes.join(' | '));
      const flagged = await page.$$eval('[data-testid=windows-table] tbody tr.flagged', (trs) => trs.map((t) => t.title));
      assert(flagged.length === 1 && flagged[0] === 'greyed: processes outside the bench used 0.31 cores (> 0.2); generator used 97 % of its 1 core (≥ 95 %)', flagged.join(' | '));
      assert(/left out of the headline ratios: start 1 round 2: processes outside the bench/.test(await page.textContent('[data-testid=cell-flagged]')), 'no flag notice');
      // another cell through the picker: the URL follows
      await page.selectOption('select[name=cell]', 'grpc-k6-GetGroup-hybrid-cold-c50');
      await page.waitForFunction(() => location.hash.includes('cell=grpc-k6-GetGroup-hybrid-cold-c50'));
      await page.waitForTimeout(300);
      const seen = await legends(page);
      assert(seen['timeline-latency'].length === 4 && !seen['timeline-latency'].some((l) => /flagged/.test(l)), seen['timeline-latency'].join(' | '));
      assert((await page.$('[data-testid=cell-flagged]')) === null, 'an unflagged cell is shown as flagged');
      await page.screenshot({ path: join(out, '4-over-time-cold-cell.png'), fullPage: true });
    });

    await test("cells & CPU: server CPU per request with intervals, the service's CPU by thread stacked, generator cores and dropped arrivals per cell", async () => {
      const { stats } = await checkView(page, base, {
        hash: `#/cells?run=${RUN_A}&tool=all`, shot: '5-cells-cpu', charts: 2,
        legend: {
          'cpu-per-request': ['REST · k6', 'REST · oha', 'gRPC · k6', 'gRPC · ghz'],
          'service-cpu-by-thread': ['REST · k6: carriers', 'REST · k6: I/O threads', 'REST · k6: other threads', 'gRPC · ghz: I/O threads'],
        },
        noErrorBars: ['service-cpu-by-thread'],
      });
      assert(stats['cpu-per-request'].greyPx > 300, 'the flagged ghz bar is not greyed');
      assert(stats['service-cpu-by-thread'].greyPx > 300, 'the flagged ghz stack is not greyed');
      // a protocol and tool's carriers and I/O threads stand in one bar
      for (const [name, rgb] of [['REST', REST_RGB], ['gRPC', GRPC_RGB]]) {
        const shared = await sharedColumns(page, 'service-cpu-by-thread', rgb, shaded(rgb, 0.45));
        assert(shared > 20, `${name}: the carriers' and the I/O threads' bars are not stacked (${shared} columns hold both)`);
      }
      const head = await page.$$eval('[data-testid=cells-table] thead th', (ths) => ths.map((t) => t.textContent));
      for (const want of ['Server CPU (µs/request)', 'Generator cores', 'Dropped arrivals', 'Achieved rate', 'p99 (ms)']) {
        assert(head.includes(want), `cells table lacks ${want}: ${head.join(', ')}`);
      }
      const col = (name) => head.indexOf(name);
      const row = async (id) => page.$eval(`[data-testid=cells-table] tr[data-cell="${id}"]`, (tr) => ({
        cls: tr.className, title: tr.title, cells: [...tr.children].map((c) => c.textContent),
      }));
      const open = await row('grpc-k6-GetGroup-hybrid-warm-c200-r16000');
      assert(/^\d{2},\d{3}$/.test(open.cells[col('Dropped arrivals')]), `dropped arrivals: ${open.cells[col('Dropped arrivals')]}`);
      assert(open.cls === 'flagged' && /arrivals not started/.test(open.title), JSON.stringify(open));
      const ghz = await row('grpc-ghz-GetGroup-hybrid-warm-c50');
      assert(ghz.cls === 'flagged' && /generator used 9\d % of its 1 core/.test(ghz.title), JSON.stringify(ghz));
      assert(/^0\.9\d+ cores$/.test(ghz.cells[col('Generator cores')]), `generator cores: ${ghz.cells[col('Generator cores')]}`);
      assert(/greyed: start 1 round 1: generator used/.test(ghz.cells[0]), `reason not under the id: ${ghz.cells[0]}`);
      const ok = await row('rest-k6-GetGroup-hybrid-warm-c50');
      assert(ok.cls === '' && /^\d+(\.\d+)? \[\d+(\.\d+)?–\d+(\.\d+)?\]$/.test(ok.cells[col('Server CPU (µs/request)')]), JSON.stringify(ok));
      assert(ok.cells[col('Dropped arrivals')] === '—', `closed cell dropped arrivals: ${ok.cells[col('Dropped arrivals')]}`);
      // a cell id opens its windows over time
      await page.click('[data-testid=cells-table] a:text("rest-k6-Hello-none-none-c50")');
      await page.waitForSelector('section[data-chart=timeline-latency] canvas', { timeout: 10000 });
      assert((await page.evaluate(() => location.hash)).startsWith('#/timeline?'), 'cell link did not open the Over time view');
      // a run from before the bench split the service's CPU by thread says so where the stacked chart would be
      await page.goto(`${base}/#/cells?run=${RUN_B}&tool=all`);
      await page.waitForSelector('section[data-chart=service-cpu-by-thread][data-empty=true]', { timeout: 10000 });
      const said = await page.textContent('section[data-chart=service-cpu-by-thread] .no-data');
      assert(/do not split the service's CPU by thread/.test(said), `run B's empty chart says: ${said}`);
    });

    await test('payload scaling draws the run’s fitted A + B·N lines with their values', async () => {
      await checkView(page, base, {
        hash: `#/payload?run=${RUN_A}`, shot: '6-payload-scaling', charts: 2,
        legend: {
          'payload-scaling': [/^REST · k6 · hybrid warm: [\d.]+ \+ [\d.]+·N ms, R² 0\.\d{4}$/, /^gRPC · k6 · hybrid warm: /],
          'body-bytes-by-page-size': ['REST · k6', 'gRPC · k6'],
        },
      });
    });

    await test('cache draws hit ratios per level and cold/warm/none side by side with intervals', async () => {
      await checkView(page, base, {
        hash: `#/cache?run=${RUN_A}`, shot: '7-cache', charts: 3, noErrorBars: ['hit-ratio'],
        legend: {
          'hit-ratio': ['REST · k6 L1', 'REST · k6 L2', 'gRPC · k6 overall'],
          'temperature-p50': ['REST · k6 no cache', 'REST · k6 cold', 'gRPC · k6 warm'],
          'temperature-throughput': ['gRPC · k6 cold'],
        },
      });
    });

    await test('compare shows both runs side by side with intervals, headline verdicts and environments', async () => {
      await checkView(page, base, {
        hash: '#/compare', shot: '8-compare', charts: 2,
        legend: { 'compare-p50': ['REST · k6 · run A', 'REST · k6 · run B', 'gRPC · k6 · run B'], 'compare-throughput': ['gRPC · k6 · run A'] },
      });
      const title = await page.textContent('.view-title');
      assert(title.includes(`${RUN_A} (A, before) vs ${RUN_B} (B, after)`), `view title: ${title}`);
      const differs = await page.$$eval('[data-testid=environments] tr.differs th', (ths) => ths.map((t) => t.textContent));
      assert(differs.includes('jdk') && differs.includes('gitCommit') && !differs.includes('placement.generator'), `environment differences: ${differs.join(', ')}`);
      const row = await page.$$eval('[data-testid=compare-headlines] tbody tr', (trs) =>
        trs.map((tr) => [...tr.children].map((c) => c.textContent)).find((cells) => cells[0] === 'tlsOverPlainP50Grpc'));
      assert(row && row[1] === '1.05× [0.96–1.15] inconclusive' && row[2] === '— missing', `compare headline row: ${JSON.stringify(row)}`);
      const intervals = await page.$$eval('section[data-chart=compare-p50] tbody tr td:nth-child(11)', (tds) => tds.map((t) => t.textContent));
      assert(intervals.length > 0 && intervals.every((t) => ['overlap', 'B lower', 'B higher'].includes(t)), intervals.join(', '));
    });

    await test('compare: "before" is the run that started earlier, whichever run the URL names', async () => {
      // RUN_B is the newest readable run: with it in the URL, the other run is the earlier one
      await page.goto(`${base}/#/compare?run=${RUN_B}`);
      await page.waitForSelector('[data-testid=environments]', { timeout: 15000 });
      const head = await page.$$eval('[data-testid=environments] thead th', (ths) => ths.map((t) => t.textContent));
      const started = await page.$$eval('[data-testid=environments] tbody tr', (trs) =>
        trs.map((tr) => [...tr.children].map((c) => c.textContent)).find((cells) => cells[0] === 'startedAt'));
      const explain = await page.textContent('main .explain');
      assert(/Run A[^.]*\(before\)/.test(explain) && /run B[^.]*\(after\)/.test(explain), `explain: ${explain}`);
      assert(head[1] === 'Run A' && head[2] === 'Run B', `environment columns: ${head.join(', ')}`);
      assert(started && Date.parse(started[1]) < Date.parse(started[2]), `"before" (A) started ${started?.[1]}, "after" (B) ${started?.[2]}`);
      const title = await page.textContent('.view-title');
      assert(title.includes(`${RUN_A} (A`) && title.includes(`${RUN_B} (B`), `view title: ${title}`);
      // "Compare with" offers the other runs, not the one chosen at the top
      const others = await page.$$eval('select[name=runB] option', (os) => os.map((o) => o.value));
      assert(others.length > 0 && !others.includes(RUN_B) && others.includes(RUN_A), `compare with: ${others.join(', ')}`);
    });

    await test('the open model: one target rate at a time, chosen in a filter and named in the subtitles, the same cells in Compare', async () => {
      await page.goto(`${base}/#/overview?run=${RUN_A}&model=open`);
      await page.waitForSelector('section[data-chart=latency-by-cache-state] canvas', { timeout: 15000 });
      const rate = await page.$eval('select[name=rate]', (s) => ({ value: s.value, options: [...s.options].map((o) => o.textContent) }));
      assert(rate.value === '1000' && rate.options[0] === '1,000/s' && rate.options.length === 9, JSON.stringify(rate));
      const subtitle = await page.textContent('section[data-chart=latency-by-cache-state] .subtitle');
      assert(/open model at 1,000\/s/.test(subtitle), subtitle);
      await page.selectOption('select[name=rate]', '8000');
      await page.waitForFunction(() => location.hash.includes('rate=8000'));
      await page.waitForTimeout(300);
      const cellIds = await page.$$eval('section[data-chart=latency-by-cache-state] table.data tbody tr td:nth-child(11)', (tds) => tds.map((t) => t.textContent));
      assert(cellIds.length === 2 && cellIds.every((id) => id.endsWith('-r8000')), `cells: ${cellIds.join(', ')}`);
      await page.click('nav a:text("Compare runs")');
      await page.waitForSelector('section[data-chart=compare-p50] canvas', { timeout: 10000 });
      const compareSubtitle = await page.textContent('section[data-chart=compare-p50] .subtitle');
      assert(/open model at 8,000\/s/.test(compareSubtitle), compareSubtitle);
    });

    await test('the tls dimension: a Transport filter and TLS series', async () => {
      await page.goto(`${base}/#/overview?run=${RUN_A}&tls=1`);
      await page.waitForSelector('section[data-chart=latency-by-cache-state] canvas', { timeout: 15000 });
      await page.waitForTimeout(300);
      const transport = await page.$eval('select[name=tls]', (s) => ({ value: s.value, options: [...s.options].map((o) => o.textContent) }));
      assert(transport.value === 'tls' && transport.options.join('|') === 'plain TCP|TLS', JSON.stringify(transport));
      const seen = await legends(page);
      for (const want of ['REST · k6 · TLS p50', 'gRPC · k6 · TLS p99']) {
        assert(seen['latency-by-cache-state'].includes(want), `legend lacks ${want}: ${seen['latency-by-cache-state'].join(' | ')}`);
      }
      const cells = await page.$$eval('section[data-chart=latency-by-cache-state] table.data tbody tr td:first-child', (tds) => tds.map((t) => t.textContent));
      assert(cells.length > 0 && cells.every((t) => t.endsWith(' · TLS')), `table protocol column: ${cells.join(' | ')}`);
      await page.screenshot({ path: join(out, '9-tls.png'), fullPage: true });
      await page.selectOption('select[name=tls]', 'plain');
      await page.waitForFunction(() => !location.hash.includes('tls=1'));
      await page.waitForTimeout(300);
      const plain = await legends(page);
      assert(plain['latency-by-cache-state'].includes('REST · k6 p50'), `plain legend: ${plain['latency-by-cache-state'].join(' | ')}`);
    });

    await test('a run recorded by the older bench (schema 1) is listed, and says to re-run make bench', async () => {
      await page.goto(`${base}/#/overview`);
      const box = await page.waitForSelector('[data-testid=unreadable-runs]', { timeout: 10000 });
      await box.click(); // open the <details>
      const text = await box.textContent();
      assert(/3 runs could not be read and 1 run was recorded by an older bench/.test(text), `summary: ${text}`);
      assert(text.includes(`${RUN_OLDER}: recorded by an older bench (schema 1): re-run make bench to see it`), `older run not explained: ${text}`);
      const options = await page.$$eval('select[name=run] option', (os) => os.map((o) => o.textContent));
      assert(options.some((o) => o === `${RUN_OLDER} — older bench (schema 1)`), `run picker: ${options.join(' | ')}`);
      await page.selectOption('select[name=run]', RUN_OLDER);
      const msg = await page.waitForSelector('[data-testid=selected-older]', { timeout: 10000 });
      const said = await msg.textContent();
      assert(/recorded by an older bench \(schema 1\): re-run make bench to see it/.test(said), said);
      assert((await page.$('[data-testid=render-error]')) === null, 'the older run crashed a view');
      await page.screenshot({ path: join(out, '10-older-bench.png'), fullPage: true });
    });

    await test('unreadable runs are listed with their reasons, the others still work', async () => {
      await page.goto(`${base}/#/overview`);
      const box = await page.waitForSelector('[data-testid=unreadable-runs]', { timeout: 10000 });
      await box.click();
      const text = await box.textContent();
      assert(/20261121T070000Z-quick-broken: unreadable — not valid JSON/.test(text), `malformed run not explained: ${text}`);
      assert(text.includes(`${RUN_NEWER}: unreadable — written with schema version 3, newer than this dashboard reads`), `newer run not explained: ${text}`);
      assert(/20261120T080000Z-partial: unreadable — \$\.cells\[3\]\.summary: expected an object, missing/.test(text), `partial run not explained: ${text}`);
      const options = await page.$$eval('select[name=run] option', (os) => os.map((o) => o.textContent));
      assert(options.filter((o) => o.endsWith('unreadable')).length === 3, `run picker: ${options.join(' | ')}`);
      await page.waitForSelector('section.chart-card canvas');
      await page.screenshot({ path: join(out, '11-unreadable-runs.png'), fullPage: true });
    });

    await test('choosing an unreadable run shows its reason instead of a blank page', async () => {
      await page.goto(`${base}/#/cache?run=${RUN_NEWER}`);
      const msg = await page.waitForSelector('[data-testid=selected-unreadable]', { timeout: 10000 });
      const text = await msg.textContent();
      assert(/unreadable/.test(text) && /schema version 3/.test(text), text);
      await page.selectOption('select[name=run]', RUN_A);
      await page.waitForSelector('section.chart-card canvas', { timeout: 10000 });
    });

    await test('the URL keeps view and filters, and filter changes update it', async () => {
      await page.goto(`${base}/#/concurrency?run=${RUN_A}&op=ListGroups&n=10&tool=all&temp=warm`);
      await page.waitForSelector('section.chart-card canvas', { timeout: 10000 });
      const values = await page.$$eval('.filter-bar select', (ss) => Object.fromEntries(ss.map((s) => [s.name, s.value])));
      assert(values.op === 'ListGroups' && values.n === '10' && values.tool === 'all' && values.temp === 'warm', JSON.stringify(values));
      const tools = await page.$$eval('select[name=tool] option', (os) => os.map((o) => o.textContent));
      assert(tools.join('|') === 'k6 (REST + gRPC)|ghz (gRPC)|oha (REST)|all tools', tools.join('|'));
      await page.selectOption('select[name=n]', '50');
      await page.waitForFunction(() => location.hash.includes('n=50'));
      const hash = await page.evaluate(() => location.hash);
      assert(hash.startsWith('#/concurrency?') && /op=ListGroups/.test(hash) && /tool=all/.test(hash), hash);
      await page.click('nav a:text("Cache")');
      await page.waitForFunction(() => location.hash.startsWith('#/cache'));
      const cacheHash = await page.evaluate(() => location.hash);
      assert(/op=ListGroups/.test(cacheHash) && /n=50/.test(cacheHash), `filters lost on view change: ${cacheHash}`);
      await page.screenshot({ path: join(out, '12-url-filters.png'), fullPage: true });
    });

    await test('CSV and PNG export download the plotted data and the picture', async () => {
      await page.goto(`${base}/#/overview?run=${RUN_A}`);
      await page.waitForSelector('section.chart-card canvas', { timeout: 10000 });
      const card = page.locator('section[data-chart=latency-by-cache-state]');
      const [csv] = await Promise.all([page.waitForEvent('download'), card.locator('button:text("CSV")').click()]);
      const text = readFileSync(await csv.path(), 'utf8');
      assert(text.startsWith('Protocol,Tool,Cache mode,Temperature,p50 (ms),p50 low,p50 high,p99 (ms),p99 low,p99 high,Cell,Flags\r\n'), `CSV header: ${text.slice(0, 120)}`);
      assert(text.trim().split('\r\n').length === 11, `CSV has ${text.trim().split('\r\n').length} lines`);
      const [png] = await Promise.all([page.waitForEvent('download'), card.locator('button:text("PNG")').click()]);
      const bytes = readFileSync(await png.path());
      assert(bytes.subarray(1, 4).toString() === 'PNG' && bytes.length > 5000, `PNG export: ${bytes.length} bytes`);
      await png.saveAs(join(out, '13-exported-chart.png'));
      assert(png.suggestedFilename().endsWith('.png'), png.suggestedFilename());
      // the cells table exports every cell with every flag reason
      await page.goto(`${base}/#/cells?run=${RUN_A}`);
      await page.waitForSelector('[data-testid=cells-table]', { timeout: 10000 });
      const [cells] = await Promise.all([page.waitForEvent('download'), page.locator('[data-testid=cells-table] button:text("CSV")').click()]);
      const lines = readFileSync(await cells.path(), 'utf8').trim().split('\r\n');
      assert(lines.length === 40 && lines[0].startsWith('Cell,Role,Protocol,Tool,Transport,TLS,'), `cells CSV: ${lines.length} lines, ${lines[0].slice(0, 60)}`);
    });

    await test('no results yet: a page that says to run make bench', async () => {
      await page.goto(`${emptyBase}/#/overview`);
      const msg = await page.waitForSelector('[data-testid=empty-state]', { timeout: 10000 });
      const text = await msg.textContent();
      assert(/No results yet/.test(text) && /make bench/.test(text), text);
      await page.screenshot({ path: join(out, '14-empty.png'), fullPage: true });
    });

    await test('a broken results index is reported, not a blank page', async () => {
      await page.goto(`${badIndexBase}/#/overview`);
      const msg = await page.waitForSelector('[data-testid=index-error]', { timeout: 10000 });
      const text = await msg.textContent();
      assert(/not valid JSON/.test(text), text);
      await page.screenshot({ path: join(out, '15-bad-index.png'), fullPage: true });
    });
  } finally {
    await context.close().catch(() => {});
    await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
    rmSync(userDataDir, { recursive: true, force: true });
    if (distDir !== join(root, 'dist')) rmSync(distDir, { recursive: true, force: true });
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
