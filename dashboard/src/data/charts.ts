// Chart specifications built from a run: what to plot and the table of the plotted numbers.
// Rendering (Chart.js) lives in components/ChartCard.tsx; these are plain data, tested in vitest.
import type { CsvValue } from './csv';
import { CACHE_LABELS, protocolLabel, seriesName, toolShade } from './style';
import {
  cacheStateLabel,
  cacheStates,
  cellKey,
  fitValue,
  gainPct,
  linearFit,
  metrics,
  ratio,
  reductionPct,
  round,
  isTls,
  seriesIds,
  summaryValue,
  where,
  type Pick,
} from './transforms';
import { CACHE_MODES, PROTOCOLS, TEMPERATURES, TOOLS, type CacheMode, type Cell, type Fit, type Protocol, type Temperature, type Tool } from './types';

export interface Point {
  x: number;
  y: number;
}

export interface SeriesSpec {
  label: string;
  protocol: Protocol;
  /** Line style and point shape; absent for bars. */
  cacheMode?: CacheMode;
  /** 0 = the protocol colour; towards 1 = lighter. */
  shade: number;
  /** Bars drawn with white diagonal stripes (ghz, beside k6's plain bars). */
  hatched?: boolean;
  data: (number | null)[] | Point[];
  /** Measured points drawn without a line (e.g. under a fitted line). */
  pointsOnly?: boolean;
  /** A fitted line: drawn without point markers. */
  fitted?: boolean;
  /** Not listed in the legend: it shows and hides with the series labelled `partnerOf`. */
  hideInLegend?: boolean;
  partnerOf?: string;
}

export interface TableSpec {
  columns: string[];
  rows: CsvValue[][];
}

export interface ChartSpec {
  key: string;
  title: string;
  subtitle?: string;
  kind: 'bar' | 'line';
  /** Category labels for bar charts; absent for x-y line charts. */
  categories?: string[];
  xTitle: string;
  yTitle: string;
  /** Unit appended to values in tooltips. */
  unit: string;
  /** How a tooltip names a point's x (x-y charts): `${before}${x}${after}`, e.g. "10 users", "N = 20". */
  xPoint?: { before: string; after: string };
  xLog?: boolean;
  /** A dashed horizontal reference line (e.g. 1 = no change for ratios). */
  referenceY?: number;
  series: SeriesSpec[];
  table: TableSpec;
}

/** Bars: the shade tells the variant (p50/p99, L1/L2, cold/warm); ghz bars are hatched. */
const bar = (tool: Tool, shade = 0) => ({ shade, hatched: tool === 'ghz' });
/** Lines: the line style tells the cache mode; ghz lines are a lighter shade. */
const line = (tool: Tool) => ({ shade: toolShade(tool) });

function hasData(series: SeriesSpec[]): boolean {
  return series.some((s) => s.data.some((d) => d !== null));
}

/** Drops series with nothing to plot. */
function keep(series: SeriesSpec[]): SeriesSpec[] {
  return series.filter((s) => hasData([s]));
}

// ---------- Overview ----------

export function latencyByCacheState(cells: Cell[], subtitle: string): ChartSpec {
  const states = cacheStates(cells);
  const series: SeriesSpec[] = [];
  const rows: CsvValue[][] = [];
  for (const { protocol, tool, tls } of seriesIds(cells)) {
    const mine = where(cells, { protocol, tool });
    const p50 = states.map((s) => summaryValue(where(mine, { ...s }), metrics.p50));
    const p99 = states.map((s) => summaryValue(where(mine, { ...s }), metrics.p99));
    series.push({ label: `${seriesName(protocol, tool, tls)} p50`, protocol, ...bar(tool), data: p50 });
    series.push({ label: `${seriesName(protocol, tool, tls)} p99`, protocol, ...bar(tool, 0.4), data: p99 });
    states.forEach((s, i) => {
      if (p50[i] !== null || p99[i] !== null) {
        rows.push([protocolLabel(protocol, tls), tool, s.cacheMode, s.temperature, p50[i], p99[i]]);
      }
    });
  }
  return {
    key: 'latency-by-cache-state',
    title: 'Latency: no cache, cold and warm (p50 and p99)',
    subtitle,
    kind: 'bar',
    categories: states.map(cacheStateLabel),
    xTitle: 'Cache mode · temperature',
    yTitle: 'Latency (ms)',
    unit: 'ms',
    series: keep(series),
    table: { columns: ['Protocol', 'Tool', 'Cache mode', 'Temperature', 'p50 (ms)', 'p99 (ms)'], rows },
  };
}

export function payloadSize(cells: Cell[], subtitle: string): ChartSpec {
  const categories = ['Response body', 'Wire bytes sent / request', 'Wire bytes received / request'];
  const picks: Pick[] = [metrics.bodyBytes, metrics.wireSent, metrics.wireReceived];
  const series: SeriesSpec[] = [];
  const rows: CsvValue[][] = [];
  for (const { protocol, tool, tls } of seriesIds(cells)) {
    const mine = where(cells, { protocol, tool });
    const values = picks.map((p) => round(summaryValue(mine, p), 1));
    series.push({ label: seriesName(protocol, tool, tls), protocol, ...bar(tool), data: values });
    rows.push([protocolLabel(protocol, tls), tool, ...values]);
  }
  return {
    key: 'payload-size',
    title: 'Payload size per request',
    subtitle: `${subtitle} (median over the cache states)`,
    kind: 'bar',
    categories,
    xTitle: 'What is counted',
    yTitle: 'Bytes per request (B)',
    unit: 'B',
    series: keep(series),
    table: { columns: ['Protocol', 'Tool', 'Body (B)', 'Wire sent (B)', 'Wire received (B)'], rows },
  };
}

export function cachingImprovement(cells: Cell[], subtitle: string): ChartSpec {
  const modes = CACHE_MODES.filter((m) => m !== 'none' && cells.some((c) => c.cacheMode === m && c.temperature === 'warm'));
  const series: SeriesSpec[] = [];
  const rows: CsvValue[][] = [];
  for (const { protocol, tool, tls } of seriesIds(cells)) {
    const mine = where(cells, { protocol, tool });
    const none = where(mine, { cacheMode: 'none' });
    const noneP50 = summaryValue(none, metrics.p50);
    const noneTput = summaryValue(none, metrics.throughput);
    const lat: (number | null)[] = [];
    const tput: (number | null)[] = [];
    for (const cacheMode of modes) {
      const warm = where(mine, { cacheMode, temperature: 'warm' });
      const warmP50 = summaryValue(warm, metrics.p50);
      const warmTput = summaryValue(warm, metrics.throughput);
      lat.push(reductionPct(noneP50, warmP50));
      tput.push(gainPct(noneTput, warmTput));
      if (warm.length) {
        rows.push([protocolLabel(protocol, tls), tool, cacheMode, noneP50, warmP50, lat.at(-1), noneTput, warmTput, tput.at(-1)]);
      }
    }
    series.push({ label: `${seriesName(protocol, tool, tls)} p50 latency reduction`, protocol, ...bar(tool), data: lat });
    series.push({ label: `${seriesName(protocol, tool, tls)} throughput gain`, protocol, ...bar(tool, 0.4), data: tput });
  }
  return {
    key: 'caching-improvement',
    title: 'Improvement from caching (warm vs no cache)',
    subtitle,
    kind: 'bar',
    categories: modes.map((m) => CACHE_LABELS[m]),
    xTitle: 'Cache mode (warm)',
    yTitle: 'Improvement over no cache (%)',
    unit: '%',
    series: keep(series),
    table: {
      columns: ['Protocol', 'Tool', 'Cache mode', 'No-cache p50 (ms)', 'Warm p50 (ms)', 'p50 reduction (%)', 'No-cache throughput (req/s)', 'Warm throughput (req/s)', 'Throughput gain (%)'],
      rows,
    },
  };
}

// ---------- Concurrency ----------

export interface ConcurrencyMetric {
  key: string;
  title: string;
  yTitle: string;
  unit: string;
  pick: Pick;
}

export const CONCURRENCY_METRICS: ConcurrencyMetric[] = [
  { key: 'p50', title: 'Latency p50 vs concurrent users', yTitle: 'Latency p50 (ms)', unit: 'ms', pick: metrics.p50 },
  { key: 'p95', title: 'Latency p95 vs concurrent users', yTitle: 'Latency p95 (ms)', unit: 'ms', pick: metrics.p95 },
  { key: 'p99', title: 'Latency p99 vs concurrent users', yTitle: 'Latency p99 (ms)', unit: 'ms', pick: metrics.p99 },
  { key: 'throughput', title: 'Throughput vs concurrent users', yTitle: 'Throughput (req/s)', unit: 'req/s', pick: metrics.throughput },
];

/** One line per protocol × tool × cache mode; cache modes at the chosen temperature, "none" as is. */
export function concurrencyChart(cells: Cell[], temperature: 'warm' | 'cold', m: ConcurrencyMetric, subtitle: string): ChartSpec {
  const series: SeriesSpec[] = [];
  const rows: CsvValue[][] = [];
  const concurrencies = [...new Set(cells.map((c) => c.concurrency))].sort((a, b) => a - b);
  for (const { protocol, tool, tls } of seriesIds(cells)) {
    for (const cacheMode of CACHE_MODES) {
      // The chosen temperature; "none" where the cache is off (or, for Hello, not touched).
      const atTemp = where(cells, { protocol, tool, cacheMode, temperature });
      const temp: Temperature = atTemp.length > 0 ? temperature : 'none';
      const mine = atTemp.length > 0 ? atTemp : where(cells, { protocol, tool, cacheMode, temperature: 'none' });
      if (mine.length === 0) continue;
      const points: Point[] = [];
      for (const x of concurrencies) {
        const y = summaryValue(where(mine, { concurrency: x }), m.pick);
        if (y === null) continue;
        points.push({ x, y });
        rows.push([protocolLabel(protocol, tls), tool, cacheMode, temp, x, y]);
      }
      series.push({
        label: `${seriesName(protocol, tool, tls)} · ${cacheMode === 'none' ? 'no cache' : temp === 'none' ? `${cacheMode} (not used)` : `${cacheMode} ${temp}`}`,
        protocol,
        cacheMode,
        ...line(tool),
        data: points,
      });
    }
  }
  const min = concurrencies[0] ?? 1;
  const max = concurrencies.at(-1) ?? 1;
  return {
    key: `concurrency-${m.key}`,
    title: m.title,
    subtitle,
    kind: 'line',
    xPoint: { before: '', after: ' users' },
    xTitle: 'Concurrent users (virtual users / connections)',
    yTitle: m.yTitle,
    unit: m.unit,
    xLog: min > 0 && max / min >= 20,
    series: keep(series),
    table: { columns: ['Protocol', 'Tool', 'Cache mode', 'Temperature', 'Users', `${m.yTitle}`], rows },
  };
}

// ---------- Payload scaling ----------

/** Fits from the run; where the run has none, fitted here from the ListGroups cells. */
export function fitsFor(fits: Fit[], cells: Cell[]): { fits: Fit[]; computed: boolean } {
  if (fits.length > 0) return { fits, computed: false };
  const groups = new Map<string, Cell[]>();
  for (const c of cells) {
    if (c.pageSize === null) continue;
    const k = [c.protocol, c.tool, c.cacheMode, c.temperature, c.operation, c.model, c.concurrency, isTls(c)].join('|');
    groups.set(k, [...(groups.get(k) ?? []), c]);
  }
  const out: Fit[] = [];
  for (const group of groups.values()) {
    const sizes = [...new Set(group.map((c) => c.pageSize!))].sort((a, b) => a - b);
    const points = sizes.map((n) => ({ pageSize: n, latencyMs: summaryValue(where(group, { pageSize: n }), metrics.p50)! }));
    const fit = linearFit(points.map((p) => ({ x: p.pageSize, y: p.latencyMs })));
    if (!fit) continue;
    const c = group[0];
    out.push({ protocol: c.protocol, tool: c.tool, cacheMode: c.cacheMode, temperature: c.temperature, operation: c.operation, concurrency: c.concurrency, tls: isTls(c), metric: 'p50', a: fit.a, b: fit.b, r2: fit.r2, points });
  }
  return { fits: out, computed: true };
}

function stateName(f: Fit): string {
  return f.cacheMode === 'none' ? 'no cache' : `${f.cacheMode} ${f.temperature}`;
}

export function fitLabel(f: Fit): string {
  const state = stateName(f);
  const r2 = f.r2 === null ? '' : `, R² ${f.r2.toFixed(4)}`;
  return `${seriesName(f.protocol, f.tool, isTls(f))} · ${state}: ${f.a.toPrecision(3)} + ${f.b.toPrecision(3)}·N ms${r2}`;
}

export function payloadScalingChart(fits: Fit[], subtitle: string): ChartSpec {
  const series: SeriesSpec[] = [];
  const rows: CsvValue[][] = [];
  const maxN = Math.max(1, ...fits.flatMap((f) => f.points.map((p) => p.pageSize)));
  const rank = (f: Fit) =>
    [PROTOCOLS.indexOf(f.protocol), TOOLS.indexOf(f.tool), CACHE_MODES.indexOf(f.cacheMode), TEMPERATURES.indexOf(f.temperature)];
  const ordered = [...fits].sort((a, b) => {
    const ra = rank(a);
    const rb = rank(b);
    return ra.map((x, i) => x - rb[i]).find((d) => d !== 0) ?? 0;
  });
  for (const f of ordered) {
    const xs = [...new Set([0, ...f.points.map((p) => p.pageSize), maxN])].sort((a, b) => a - b);
    const fitted: Point[] = xs.map((x) => ({ x, y: round(fitValue(f, x))! }));
    series.push({ label: fitLabel(f), protocol: f.protocol, cacheMode: f.cacheMode, ...line(f.tool), data: fitted, fitted: true });
    series.push({
      label: `${seriesName(f.protocol, f.tool, isTls(f))} · ${stateName(f)} measured p50`,
      partnerOf: fitLabel(f),
      protocol: f.protocol,
      cacheMode: f.cacheMode,
      ...line(f.tool),
      data: f.points.map((p) => ({ x: p.pageSize, y: p.latencyMs })),
      pointsOnly: true,
      hideInLegend: true,
    });
    rows.push([
      protocolLabel(f.protocol, isTls(f)), f.tool, f.cacheMode, f.temperature,
      round(f.a), round(f.b, 6), round(f.r2),
      f.points.map((p) => `N=${p.pageSize}: ${p.latencyMs} ms`).join('; '),
    ]);
  }
  return {
    key: 'payload-scaling',
    title: 'Cycle time vs page size: measured p50 and fitted A + B·N',
    subtitle,
    kind: 'line',
    xPoint: { before: 'N = ', after: '' },
    xTitle: 'Page size N (rows per response)',
    yTitle: 'Latency p50 (ms)',
    unit: 'ms',
    series,
    table: { columns: ['Protocol', 'Tool', 'Cache mode', 'Temperature', 'A (ms)', 'B (ms/row)', 'R²', 'Measured points'], rows },
  };
}

export function bodyBytesByPageSize(cells: Cell[], subtitle: string): ChartSpec {
  const series: SeriesSpec[] = [];
  const rows: CsvValue[][] = [];
  const sizes = [...new Set(cells.flatMap((c) => (c.pageSize === null ? [] : [c.pageSize])))].sort((a, b) => a - b);
  for (const { protocol, tool, tls } of seriesIds(cells)) {
    const mine = where(cells, { protocol, tool });
    const points: Point[] = [];
    for (const n of sizes) {
      const atN = where(mine, { pageSize: n });
      const body = round(summaryValue(atN, metrics.bodyBytes), 1);
      if (body === null) continue;
      points.push({ x: n, y: body });
      rows.push([protocolLabel(protocol, tls), tool, n, body, round(summaryValue(atN, metrics.wireSent), 1), round(summaryValue(atN, metrics.wireReceived), 1)]);
    }
    series.push({ label: seriesName(protocol, tool, tls), protocol, cacheMode: 'none', ...line(tool), data: points });
  }
  return {
    key: 'body-bytes-by-page-size',
    title: 'Response body size vs page size',
    subtitle: `${subtitle} (median over the cache states)`,
    kind: 'line',
    xPoint: { before: 'N = ', after: '' },
    xTitle: 'Page size N (rows per response)',
    yTitle: 'Response body (B)',
    unit: 'B',
    series: keep(series),
    table: { columns: ['Protocol', 'Tool', 'Page size', 'Body (B)', 'Wire sent (B)', 'Wire received (B)'], rows },
  };
}

// ---------- Cache ----------

export function hitRatioChart(cells: Cell[], subtitle: string): ChartSpec {
  const states = cacheStates(cells).filter((s) => s.cacheMode !== 'none');
  const levels: { name: string; pick: Pick; shade: number }[] = [
    { name: 'L1', pick: metrics.hitL1, shade: 0 },
    { name: 'L2', pick: metrics.hitL2, shade: 0.3 },
    { name: 'overall', pick: metrics.hitOverall, shade: 0.55 },
  ];
  const series: SeriesSpec[] = [];
  const rows: CsvValue[][] = [];
  for (const { protocol, tool, tls } of seriesIds(cells)) {
    const mine = where(cells, { protocol, tool });
    const perLevel = levels.map((l) => states.map((s) => round(pct(summaryValue(where(mine, { ...s }), l.pick)), 2)));
    levels.forEach((l, i) =>
      series.push({ label: `${seriesName(protocol, tool, tls)} ${l.name}`, protocol, ...bar(tool, l.shade), data: perLevel[i] }),
    );
    states.forEach((s, j) => {
      if (where(mine, { ...s }).length) rows.push([protocolLabel(protocol, tls), tool, s.cacheMode, s.temperature, perLevel[0][j], perLevel[1][j], perLevel[2][j]]);
    });
  }
  return {
    key: 'hit-ratio',
    title: 'Cache hit ratio per level',
    subtitle,
    kind: 'bar',
    categories: states.map(cacheStateLabel),
    xTitle: 'Cache mode · temperature',
    yTitle: 'Hit ratio (%)',
    unit: '%',
    series: keep(series),
    table: { columns: ['Protocol', 'Tool', 'Cache mode', 'Temperature', 'L1 hits (%)', 'L2 hits (%)', 'Overall hits (%)'], rows },
  };
}

function pct(x: number | null): number | null {
  return x === null ? null : x * 100;
}

/** p50 or throughput per cache mode, with cold, warm and none side by side. */
export function temperatureChart(cells: Cell[], which: 'p50' | 'throughput', subtitle: string): ChartSpec {
  const modes = CACHE_MODES.filter((m) => cells.some((c) => c.cacheMode === m));
  const temps: { t: Temperature; shade: number }[] = [
    { t: 'none', shade: 0 },
    { t: 'cold', shade: 0.45 },
    { t: 'warm', shade: 0 },
  ];
  const pick = which === 'p50' ? metrics.p50 : metrics.throughput;
  const series: SeriesSpec[] = [];
  const rows: CsvValue[][] = [];
  for (const { protocol, tool, tls } of seriesIds(cells)) {
    const mine = where(cells, { protocol, tool });
    for (const { t, shade } of temps) {
      const data = modes.map((cacheMode) => summaryValue(where(mine, { cacheMode, temperature: t }), pick));
      series.push({ label: `${seriesName(protocol, tool, tls)} ${t === 'none' ? 'no cache' : t}`, protocol, ...bar(tool, shade), data });
      modes.forEach((m, i) => {
        if (data[i] !== null) rows.push([protocolLabel(protocol, tls), tool, m, t, data[i]]);
      });
    }
  }
  const unit = which === 'p50' ? 'ms' : 'req/s';
  const yTitle = which === 'p50' ? 'Latency p50 (ms)' : 'Throughput (req/s)';
  return {
    key: `temperature-${which}`,
    title: which === 'p50' ? 'Latency p50: cold, warm and no cache side by side' : 'Throughput: cold, warm and no cache side by side',
    subtitle,
    kind: 'bar',
    categories: modes.map((m) => CACHE_LABELS[m]),
    xTitle: 'Cache mode',
    yTitle,
    unit,
    series: keep(series),
    table: { columns: ['Protocol', 'Tool', 'Cache mode', 'Temperature', yTitle], rows },
  };
}

// ---------- Compare runs ----------

export interface CellPair {
  key: string;
  a: Cell;
  b: Cell;
}

/** Cells of the two runs matched by what they measured. */
export function pairCells(a: Cell[], b: Cell[]): { pairs: CellPair[]; onlyA: number; onlyB: number } {
  const inB = new Map(b.map((c) => [cellKey(c), c]));
  const pairs: CellPair[] = [];
  for (const c of a) {
    const other = inB.get(cellKey(c));
    if (other) pairs.push({ key: cellKey(c), a: c, b: other });
  }
  return { pairs, onlyA: a.length - pairs.length, onlyB: b.length - pairs.length };
}

export function compareChart(pairs: CellPair[], which: 'p50' | 'throughput', subtitle: string): ChartSpec {
  const cellsA = pairs.map((p) => p.a);
  const states = cacheStates(cellsA);
  const pick = which === 'p50' ? metrics.p50 : metrics.throughput;
  const series: SeriesSpec[] = [];
  const rows: CsvValue[][] = [];
  for (const { protocol, tool, tls } of seriesIds(cellsA)) {
    const data = states.map((s) => {
      const mine = pairs.filter((p) => p.a.protocol === protocol && p.a.tool === tool && p.a.cacheMode === s.cacheMode && p.a.temperature === s.temperature);
      if (mine.length === 0) return null;
      const va = summaryValue(mine.map((p) => p.a), pick);
      const vb = summaryValue(mine.map((p) => p.b), pick);
      const r = ratio(vb, va);
      rows.push([protocolLabel(protocol, tls), tool, s.cacheMode, s.temperature, va, vb, r]);
      return r;
    });
    series.push({ label: seriesName(protocol, tool, tls), protocol, ...bar(tool), data });
  }
  const name = which === 'p50' ? 'p50 latency' : 'throughput';
  const unitName = which === 'p50' ? 'ms' : 'req/s';
  return {
    key: `compare-${which}`,
    title: `Run B ÷ run A: ${name}`,
    subtitle: `${subtitle}; 1 = no change, ${which === 'p50' ? 'below 1 = B is faster' : 'above 1 = B serves more'}`,
    kind: 'bar',
    categories: states.map(cacheStateLabel),
    xTitle: 'Cache mode · temperature',
    yTitle: `B ÷ A ${name} (×)`,
    unit: '×',
    referenceY: 1,
    series: keep(series),
    table: { columns: ['Protocol', 'Tool', 'Cache mode', 'Temperature', `Run A (${unitName})`, `Run B (${unitName})`, 'B ÷ A (×)'], rows },
  };
}

/** Environment fields of two runs side by side, with whether they differ. */
export function environmentRows(a: Record<string, unknown>, b: Record<string, unknown>): { key: string; a: string; b: string; differs: boolean }[] {
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
  return keys.map((key) => {
    const va = show(a[key]);
    const vb = show(b[key]);
    return { key, a: va, b: vb, differs: va !== vb };
  });
}

export function show(v: unknown): string {
  if (v === undefined || v === null) return '—';
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}
