// Chart specifications built from a run: what to plot and the table of the plotted numbers.
// Rendering (Chart.js) lives in chartConfig.ts and components/ChartCard.tsx; these are plain data,
// tested in vitest. Every plotted number is a figure of run.json as it stands there (no averaging
// across cells, no ratios made here); a cell or window the bench flagged is drawn grey, with the
// bench's reason in the tooltip, the notes under the chart and the table's Flags column.
import type { CsvValue } from './csv';
import { formatBytes, formatNumber, formatPercentile, formatValue, type ColumnFormat } from './format';
import { CACHE_LABELS, protocolLabel, seriesName, toolShade } from './style';
import {
  cacheStateLabel,
  cacheStates,
  cellKey,
  estimate,
  fitValue,
  flagReason,
  flagsSummary,
  flagsText,
  isTls,
  metrics,
  pickCell,
  seriesIds,
  where,
  type Pick,
} from './transforms';
import {
  CACHE_MODES,
  PROTOCOLS,
  TEMPERATURES,
  TOOLS,
  type CacheMode,
  type Cell,
  type Fit,
  type Interval,
  type Protocol,
  type Sweep,
  type Temperature,
  type Tool,
} from './types';

/** One plotted value. Bars: the category is the position in `data`; lines: `x`. */
export interface Datum {
  x?: number;
  y: number;
  /** The 95 % interval, drawn as an error bar when the chart has them. */
  low?: number | null;
  high?: number | null;
  /** Why the point is greyed: the bench's reasons for flagging its cell or window. */
  flag?: string | null;
  /** The cell behind the point. */
  cellId?: string;
  /** How a tooltip names the point's x ("p99.9", "7,900 req/s (target 8,000/s)"). */
  xLabel?: string;
}

export interface SeriesSpec {
  label: string;
  protocol: Protocol;
  /** Line style and point shape; absent for bars. */
  cacheMode?: CacheMode;
  /** A line style of its own (e.g. p99 dashed beside a solid p50), instead of the cache mode's. */
  dash?: number[];
  /** 0 = the protocol colour; towards 1 = lighter. */
  shade: number;
  /** Bars drawn with white diagonal stripes (the single-wire tools, beside k6's plain bars). */
  hatched?: boolean;
  data: (Datum | null)[];
  /** Measured points drawn without a line (e.g. under a fitted line). */
  pointsOnly?: boolean;
  /** A fitted line: drawn without point markers and without tooltips. */
  fitted?: boolean;
  /** Not listed in the legend: it shows and hides with the series labelled `partnerOf`. */
  hideInLegend?: boolean;
  partnerOf?: string;
  /** The whole series is greyed (a flagged window), with this reason. */
  flag?: string | null;
}

export interface TableSpec {
  columns: string[];
  /** How each column is printed (units are in the headers); numbers at three digits by default. */
  formats?: ColumnFormat[];
  rows: CsvValue[][];
  /** Greyed rows: the reason, or null. */
  rowFlags?: (string | null)[];
}

/** A vertical marker line (e.g. the knee of a sweep) at x, labelled on the chart. */
export interface Marker {
  x: number;
  label: string;
  protocol: Protocol;
  shade: number;
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
  /** Unit of the y values, in tooltips. */
  unit: string;
  /** How a tooltip names a point's x (x-y charts): `${before}${x}${after}`, e.g. "10 users". */
  xPoint?: { before: string; after: string };
  /** linear, log, or percentile: log of 1/(1−p) with ticks 50 %, 90 %, 99 %, 99.9 %, 99.99 %. */
  xAxis?: 'linear' | 'log' | 'percentile';
  yLog?: boolean;
  /** A dashed horizontal reference line. */
  referenceY?: number;
  /** The data carry intervals (low/high) drawn as error bars. */
  errorBars?: boolean;
  /** Bars: a series with no value in a category takes no room there (one bar per category). */
  skipNull?: boolean;
  /** Bars start at this value instead of the axis' minimum (1 for a ratio: below 1 is a bar down). */
  barBase?: number;
  markers?: Marker[];
  /** Shown under the chart: flagged cells and windows with the reasons, knees with theirs. */
  notes?: string[];
  series: SeriesSpec[];
  table: TableSpec;
}

/** Bars: the shade tells the variant (p50/p99, L1/L2, cold/warm); single-wire tools are hatched. */
const bar = (tool: Tool, shade = 0) => ({ shade, hatched: tool !== 'k6' });
/** Lines: the line style tells the cache mode; single-wire tools are a lighter shade. */
const line = (tool: Tool) => ({ shade: toolShade(tool) });

/** Drops series with nothing to plot. */
function keep(series: SeriesSpec[]): SeriesSpec[] {
  return series.filter((s) => s.data.some((d) => d !== null));
}

/** A cell's figure as a plotted point (null when run.json has none). */
function datum(e: Interval & { cell: Cell | null }, x?: number): Datum | null {
  if (e.value === null) return null;
  return {
    ...(x === undefined ? {} : { x }),
    y: e.value,
    low: e.low,
    high: e.high,
    flag: e.cell ? flagReason(e.cell) : null,
    cellId: e.cell?.id,
  };
}

/** "Greyed: <cell id> — <reasons>" for each flagged cell behind the plotted points. */
function flagNotes(series: SeriesSpec[]): string[] {
  const seen = new Map<string, string>();
  for (const s of series) {
    for (const d of s.data) {
      if (d?.flag && d.cellId && !seen.has(d.cellId)) seen.set(d.cellId, d.flag);
    }
  }
  return [...seen].map(([id, reason]) => `Greyed: ${id} — ${reason}`);
}

function stateName(s: { cacheMode: CacheMode; temperature: Temperature }): string {
  if (s.cacheMode === 'none') return 'no cache';
  return s.temperature === 'none' ? `${s.cacheMode} (not used)` : `${s.cacheMode} ${s.temperature}`;
}

const T = 'text' as const;
const I = 'int' as const;
const N = 'num' as const;

// ---------- bars per cache state (Overview, Cells) ----------

interface Variant {
  name: string;
  pick: Pick;
  shade: number;
}

interface CacheStateBars {
  key: string;
  title: string;
  yTitle: string;
  unit: string;
  variants: Variant[];
  /** Extra table columns from the cell that stands for the bar group. */
  extra?: { column: string; value: (c: Cell) => CsvValue }[];
}

function cacheStateBars(cells: Cell[], subtitle: string, o: CacheStateBars): ChartSpec {
  const states = cacheStates(cells);
  const series: SeriesSpec[] = [];
  const rows: CsvValue[][] = [];
  const rowFlags: (string | null)[] = [];
  for (const { protocol, tool, tls } of seriesIds(cells)) {
    const mine = where(cells, { protocol, tool });
    const perVariant = o.variants.map((v) => states.map((s) => estimate(where(mine, { ...s }), v.pick)));
    o.variants.forEach((v, i) => {
      const name = o.variants.length > 1 ? `${seriesName(protocol, tool, tls)} ${v.name}` : seriesName(protocol, tool, tls);
      series.push({ label: name, protocol, ...bar(tool, v.shade), data: perVariant[i].map((e) => datum(e)) });
    });
    states.forEach((s, j) => {
      const cell = pickCell(where(mine, { ...s }));
      if (!cell || perVariant.every((p) => p[j].value === null)) return;
      rows.push([
        protocolLabel(protocol, tls), tool, s.cacheMode, s.temperature,
        ...perVariant.flatMap((p) => [p[j].value, p[j].low, p[j].high]),
        ...(o.extra ?? []).map((x) => x.value(cell)),
        cell.id, flagReason(cell),
      ]);
      rowFlags.push(flagReason(cell));
    });
  }
  const kept = keep(series);
  return {
    key: o.key,
    title: o.title,
    subtitle,
    kind: 'bar',
    categories: states.map(cacheStateLabel),
    xTitle: 'Cache mode · temperature',
    yTitle: o.yTitle,
    unit: o.unit,
    errorBars: true,
    notes: flagNotes(kept),
    series: kept,
    table: {
      columns: [
        'Protocol', 'Tool', 'Cache mode', 'Temperature',
        ...o.variants.flatMap((v) => [`${v.name} (${o.unit})`, `${v.name} low`, `${v.name} high`]),
        ...(o.extra ?? []).map((x) => x.column),
        'Cell', 'Flags',
      ],
      formats: [T, T, T, T, ...o.variants.flatMap(() => [N, N, N]), ...(o.extra ?? []).map(() => N), T, T],
      rows,
      rowFlags,
    },
  };
}

// ---------- Overview ----------

export function latencyByCacheState(cells: Cell[], subtitle: string): ChartSpec {
  return cacheStateBars(cells, subtitle, {
    key: 'latency-by-cache-state',
    title: 'Latency: no cache, cold and warm (p50 and p99, 95 % intervals)',
    yTitle: 'Latency (ms)',
    unit: 'ms',
    variants: [
      { name: 'p50', pick: metrics.p50, shade: 0 },
      { name: 'p99', pick: metrics.p99, shade: 0.4 },
    ],
  });
}

export function throughputByCacheState(cells: Cell[], subtitle: string): ChartSpec {
  return cacheStateBars(cells, subtitle, {
    key: 'throughput-by-cache-state',
    title: 'Throughput: no cache, cold and warm (95 % intervals)',
    yTitle: 'Throughput (req/s)',
    unit: 'req/s',
    variants: [{ name: 'throughput', pick: metrics.throughput, shade: 0 }],
  });
}

export function payloadSize(cells: Cell[], subtitle: string): ChartSpec {
  const categories = ['Response body', 'Wire bytes sent / request', 'Wire bytes received / request'];
  const picks: Pick[] = [metrics.bodyBytes, metrics.wireSent, metrics.wireReceived];
  const series: SeriesSpec[] = [];
  const rows: CsvValue[][] = [];
  for (const { protocol, tool, tls } of seriesIds(cells)) {
    // one cell's figures (they do not depend on the cache state): no cache where there is one
    const mine = where(cells, { protocol, tool }).filter((c) => c.summary.bodyBytes !== null);
    const cell = pickCell(where(mine, { cacheMode: 'none' })) ?? pickCell(mine);
    if (!cell) continue;
    const values = picks.map((p) => p(cell).value);
    series.push({
      label: seriesName(protocol, tool, tls), protocol, ...bar(tool),
      data: values.map((y) => (y === null ? null : { y, cellId: cell.id })),
    });
    rows.push([protocolLabel(protocol, tls), tool, ...values, cell.id]);
  }
  return {
    key: 'payload-size',
    title: 'Payload size per request',
    subtitle: `${subtitle} (the no-cache cell where there is one)`,
    kind: 'bar',
    categories,
    xTitle: 'What is counted',
    yTitle: 'Bytes per request (B)',
    unit: 'B',
    series: keep(series),
    table: {
      columns: ['Protocol', 'Tool', 'Body (B)', 'Wire sent (B)', 'Wire received (B)', 'Cell'],
      formats: [T, T, N, N, N, T],
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
  /** run.json holds an interval for it (drawn as error bars). */
  interval: boolean;
}

export const CONCURRENCY_METRICS: ConcurrencyMetric[] = [
  { key: 'p50', title: 'Latency p50 vs concurrent users (95 % intervals)', yTitle: 'Latency p50 (ms)', unit: 'ms', pick: metrics.p50, interval: true },
  { key: 'p95', title: 'Latency p95 vs concurrent users (pooled)', yTitle: 'Latency p95 (ms)', unit: 'ms', pick: metrics.p95, interval: false },
  { key: 'p99', title: 'Latency p99 vs concurrent users (95 % intervals)', yTitle: 'Latency p99 (ms)', unit: 'ms', pick: metrics.p99, interval: true },
  { key: 'throughput', title: 'Throughput vs concurrent users (95 % intervals)', yTitle: 'Throughput (req/s)', unit: 'req/s', pick: metrics.throughput, interval: true },
];

/** One line per protocol × tool × cache mode; cache modes at the chosen temperature, "none" as is. */
export function concurrencyChart(cells: Cell[], temperature: 'warm' | 'cold', m: ConcurrencyMetric, subtitle: string): ChartSpec {
  const series: SeriesSpec[] = [];
  const rows: CsvValue[][] = [];
  const rowFlags: (string | null)[] = [];
  const concurrencies = [...new Set(cells.map((c) => c.concurrency))].sort((a, b) => a - b);
  for (const { protocol, tool, tls } of seriesIds(cells)) {
    for (const cacheMode of CACHE_MODES) {
      // The chosen temperature; "none" where the cache is off (or, for Hello, not touched).
      const atTemp = where(cells, { protocol, tool, cacheMode, temperature });
      const temp: Temperature = atTemp.length > 0 ? temperature : 'none';
      const mine = atTemp.length > 0 ? atTemp : where(cells, { protocol, tool, cacheMode, temperature: 'none' });
      if (mine.length === 0) continue;
      const points: Datum[] = [];
      for (const x of concurrencies) {
        const e = estimate(where(mine, { concurrency: x }), m.pick);
        const d = datum(e, x);
        if (!d) continue;
        points.push(d);
        rows.push([protocolLabel(protocol, tls), tool, cacheMode, temp, x, e.value, e.low, e.high, e.cell!.id, d.flag ?? null]);
        rowFlags.push(d.flag ?? null);
      }
      series.push({
        label: `${seriesName(protocol, tool, tls)} · ${stateName({ cacheMode, temperature: temp })}`,
        protocol,
        cacheMode,
        ...line(tool),
        data: points,
      });
    }
  }
  const min = concurrencies[0] ?? 1;
  const max = concurrencies.at(-1) ?? 1;
  const kept = keep(series);
  return {
    key: `concurrency-${m.key}`,
    title: m.title,
    subtitle,
    kind: 'line',
    xPoint: { before: '', after: ' users' },
    xTitle: 'Concurrent users (virtual users / connections)',
    yTitle: m.yTitle,
    unit: m.unit,
    xAxis: min > 0 && max / min >= 20 ? 'log' : 'linear',
    errorBars: m.interval,
    notes: flagNotes(kept),
    series: kept,
    table: {
      columns: ['Protocol', 'Tool', 'Cache mode', 'Temperature', 'Users', m.yTitle, 'low', 'high', 'Cell', 'Flags'],
      formats: [T, T, T, T, I, N, N, N, T, T],
      rows,
      rowFlags,
    },
  };
}

// ---------- Latency: spectrum and latency vs throughput ----------

/** Where a percentile sits on the spectrum's x axis: 1/(1−p), so 90 % → 10, 99.9 % → 1000. */
export function percentileX(percentile: number): number {
  return 1 / (1 - percentile / 100);
}

/** The spectrum axis' ticks (x = 1/(1−p)) and their labels. */
export const PERCENTILE_TICKS: { value: number; label: string }[] = [
  { value: 1, label: '0%' },
  { value: 2, label: '50%' },
  { value: 10, label: '90%' },
  { value: 100, label: '99%' },
  { value: 1000, label: '99.9%' },
  { value: 10000, label: '99.99%' },
  { value: 100000, label: '99.999%' },
];

/**
 * HDR-style latency spectrum: each cell's pooled percentiles (summary.spectrum) against the
 * percentile on a log scale of 1/(1−p), latency on a log scale. One line per cell.
 */
export function spectrumChart(cells: Cell[], subtitle: string): ChartSpec {
  const series: SeriesSpec[] = [];
  const rows: CsvValue[][] = [];
  const rowFlags: (string | null)[] = [];
  const ordered = [...cells].sort(
    (a, b) =>
      PROTOCOLS.indexOf(a.protocol) - PROTOCOLS.indexOf(b.protocol) ||
      TOOLS.indexOf(a.tool) - TOOLS.indexOf(b.tool) ||
      CACHE_MODES.indexOf(a.cacheMode) - CACHE_MODES.indexOf(b.cacheMode) ||
      TEMPERATURES.indexOf(a.temperature) - TEMPERATURES.indexOf(b.temperature),
  );
  const labels = new Map<string, number>();
  for (const c of ordered) {
    let label = `${seriesName(c.protocol, c.tool, isTls(c))} · ${stateName(c)}`;
    labels.set(label, (labels.get(label) ?? 0) + 1);
    if (labels.get(label)! > 1) label = `${label} (${c.id})`;
    const flag = flagReason(c);
    // p = 100 (the maximum) has no place on a 1/(1−p) axis; the table gives the max
    const data: Datum[] = c.summary.spectrum
      .filter((p) => p.percentile < 100 && p.ms > 0)
      .map((p) => ({ x: percentileX(p.percentile), y: p.ms, xLabel: formatPercentile(p.percentile), flag, cellId: c.id }));
    series.push({ label, protocol: c.protocol, cacheMode: c.cacheMode, ...line(c.tool), data });
    const l = c.summary.latencyMs;
    rows.push([
      protocolLabel(c.protocol, isTls(c)), c.tool, c.cacheMode, c.temperature,
      l.p50, l.p90, l.p99, l.p999, l.p9999, l.max, c.summary.samples, c.id, flag,
    ]);
    rowFlags.push(flag);
  }
  const kept = keep(series);
  return {
    key: 'latency-spectrum',
    title: 'Latency percentile spectrum (pooled over all windows)',
    subtitle: `${subtitle}; each line ends at the highest percentile its sample count supports`,
    kind: 'line',
    xTitle: 'Percentile (log scale of 1/(1−p))',
    yTitle: 'Latency (ms, log scale)',
    unit: 'ms',
    xAxis: 'percentile',
    yLog: true,
    notes: flagNotes(kept),
    series: kept,
    table: {
      columns: ['Protocol', 'Tool', 'Cache mode', 'Temperature', 'p50 (ms)', 'p90 (ms)', 'p99 (ms)', 'p99.9 (ms)', 'p99.99 (ms)', 'max (ms)', 'Samples', 'Cell', 'Flags'],
      formats: [T, T, T, T, N, N, N, N, N, N, I, T, T],
      rows,
      rowFlags,
    },
  };
}

export function sweepName(s: Sweep): string {
  const page = s.pageSize === null ? '' : ` N=${s.pageSize}`;
  return `${seriesName(s.protocol, s.tool, s.tls)} · ${s.operation}${page} ${stateName(s)}`;
}

/**
 * Latency against throughput from each open-model sweep: x = the throughput served (successes),
 * y = p50 (solid) and p99 (dashed) on a log scale; the knee marked, its reason in the notes.
 */
export function latencyVsThroughputChart(sweeps: Sweep[], subtitle: string): ChartSpec {
  const series: SeriesSpec[] = [];
  const rows: CsvValue[][] = [];
  const rowFlags: (string | null)[] = [];
  const markers: Marker[] = [];
  const knees: string[] = [];
  const notes: string[] = [];
  const short = new Map<string, number>();
  for (const s of sweeps) {
    const k = seriesName(s.protocol, s.tool, s.tls);
    short.set(k, (short.get(k) ?? 0) + 1);
  }
  for (const s of sweeps) {
    const base = seriesName(s.protocol, s.tool, s.tls);
    const name = short.get(base)! > 1 ? sweepName(s) : base;
    const shade = toolShade(s.tool);
    const pts = s.points.filter((p) => p.throughputRps !== null);
    const at = (p: (typeof pts)[number], y: number | null): Datum[] =>
      y === null || y <= 0
        ? []
        : [{
            x: p.throughputRps!,
            y,
            xLabel: `${formatValue(p.throughputRps, 'req/s')} (target ${formatValue(p.targetRate, '/s')})`,
            flag: flagsSummary(p.flags),
            cellId: p.cellId,
          }];
    series.push({ label: `${name} p50`, protocol: s.protocol, cacheMode: 'none', shade, data: pts.flatMap((p) => at(p, p.p50)) });
    series.push({ label: `${name} p99`, protocol: s.protocol, dash: [6, 4], shade, data: pts.flatMap((p) => at(p, p.p99)) });
    for (const p of s.points) {
      const flag = flagsSummary(p.flags);
      rows.push([sweepName(s), p.targetRate, p.achievedRate, p.throughputRps, p.p50, p.p99, p.p999, p.droppedIterations, p.errorRate, p.cellId, flag]);
      rowFlags.push(flag);
      if (flag) notes.push(`Greyed: ${p.cellId} — ${flag}`);
    }
    if (s.knee) {
      markers.push({ x: s.knee.throughputRps, label: `${name} knee`, protocol: s.protocol, shade });
      knees.push(
        `${name} knee at ${formatValue(s.knee.throughputRps, 'req/s')} (target ${formatValue(s.knee.targetRate, '/s')}): ${s.knee.reason}`,
      );
    } else {
      knees.push(`${name}: no knee within the sweep (limits: p99 ${formatValue(s.limits.p99Ms, 'ms')}, dropped arrivals ${formatNumber(s.limits.dropRate * 100)}%)`);
    }
  }
  return {
    key: 'latency-vs-throughput',
    title: 'Latency vs throughput (open-model rate sweeps)',
    subtitle: `${subtitle}; solid p50, dashed p99; a vertical line marks each sweep's knee`,
    kind: 'line',
    xTitle: 'Throughput served (req/s)',
    yTitle: 'Latency (ms, log scale)',
    unit: 'ms',
    xAxis: 'linear',
    yLog: true,
    markers,
    notes: [...knees, ...notes],
    series: keep(series),
    table: {
      columns: ['Sweep', 'Target rate (/s)', 'Achieved rate (/s)', 'Throughput (req/s)', 'p50 (ms)', 'p99 (ms)', 'p99.9 (ms)', 'Dropped arrivals', 'Error rate', 'Cell', 'Flags'],
      formats: [T, N, N, N, N, N, N, I, 'fraction', T, T],
      rows,
      rowFlags,
    },
  };
}

// ---------- Over time: a cell's windows ----------

/** "start 0 · round 1": a window by its service start and round. */
export function windowName(w: { start: number; round: number }): string {
  return `start ${w.start} · round ${w.round}`;
}

const WINDOW_SHADES = [0, 0.35, 0.55, 0.7, 0.2, 0.45, 0.62, 0.78];

/** Per 250 ms slice of each window of one cell: p50 and p99 (latency) or requests per second. */
export function timelineChart(cell: Cell, which: 'latency' | 'rps'): ChartSpec {
  const series: SeriesSpec[] = [];
  const rows: CsvValue[][] = [];
  const rowFlags: (string | null)[] = [];
  const notes: string[] = [];
  const windows = [...cell.windows].sort((a, b) => a.order - b.order);
  windows.forEach((w, i) => {
    const flag = flagsText(w.flags);
    const label = `${windowName(w)}${flag ? ' (flagged)' : ''}`;
    const shade = WINDOW_SHADES[i % WINDOW_SHADES.length];
    // a slice without a figure is left out (the line joins its neighbours)
    const pts = (pick: (s: (typeof w.timeline)[number]) => number | null): Datum[] =>
      w.timeline.flatMap((s) => {
        const y = pick(s);
        return y === null ? [] : [{ x: s.t, y, flag }];
      });
    if (which === 'latency') {
      series.push({ label, protocol: cell.protocol, cacheMode: 'none', shade, flag, data: pts((s) => s.p50) });
      series.push({ label: `${label} p99`, protocol: cell.protocol, dash: [6, 4], shade, flag, data: pts((s) => s.p99), hideInLegend: true, partnerOf: label });
    } else {
      series.push({ label, protocol: cell.protocol, cacheMode: 'none', shade, flag, data: pts((s) => s.rps) });
    }
    if (flag) notes.push(`Greyed: ${windowName(w)} — ${flag}`);
    for (const s of w.timeline) {
      rows.push(which === 'latency' ? [windowName(w), w.order, s.t, s.p50, s.p99, flag] : [windowName(w), w.order, s.t, s.rps, flag]);
      rowFlags.push(flag);
    }
  });
  const latency = which === 'latency';
  return {
    key: `timeline-${which}`,
    title: latency ? 'Latency over time within each window (p50 and p99 per 250 ms)' : 'Throughput over time within each window (per 250 ms)',
    subtitle: `${cell.id}; one line per window${latency ? ', solid p50, dashed p99' : ''}`,
    kind: 'line',
    xPoint: { before: 't = ', after: ' s' },
    xTitle: 'Time into the window (s)',
    yTitle: latency ? 'Latency (ms)' : 'Throughput (req/s)',
    unit: latency ? 'ms' : 'req/s',
    xAxis: 'linear',
    notes,
    series: keep(series),
    table: {
      columns: latency ? ['Window', 'Order', 't (s)', 'p50 (ms)', 'p99 (ms)', 'Flags'] : ['Window', 'Order', 't (s)', 'Throughput (req/s)', 'Flags'],
      formats: latency ? [T, I, N, N, N, T] : [T, I, N, N, T],
      rows,
      rowFlags,
    },
  };
}

// ---------- CPU per request ----------

export function cpuPerRequestChart(cells: Cell[], subtitle: string): ChartSpec {
  const cpu = (c: Cell) => c.summary.cpuUsPerRequest;
  return cacheStateBars(cells, subtitle, {
    key: 'cpu-per-request',
    title: 'Server CPU per request (service + MariaDB + Redis, 95 % intervals)',
    yTitle: 'Server CPU per request (µs)',
    unit: 'µs',
    variants: [{ name: 'server', pick: metrics.serverCpu, shade: 0 }],
    extra: [
      { column: 'service (µs)', value: (c) => cpu(c).service },
      { column: 'MariaDB (µs)', value: (c) => cpu(c).mariadb },
      { column: 'Redis (µs)', value: (c) => cpu(c).redis },
      { column: 'generator (µs)', value: (c) => cpu(c).generator },
      { column: 'generator cores', value: (c) => c.summary.generatorCores },
    ],
  });
}

// ---------- Payload scaling ----------

export function fitLabel(f: Fit): string {
  const r2 = f.r2 === null ? '' : `, R² ${f.r2.toFixed(4)}`;
  return `${seriesName(f.protocol, f.tool, isTls(f))} · ${stateName(f)}: ${formatNumber(f.a)} + ${formatNumber(f.b)}·N ms${r2}`;
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
    const fitted: Datum[] = xs.map((x) => ({ x, y: fitValue(f, x) }));
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
      protocolLabel(f.protocol, isTls(f)), f.tool, f.cacheMode, f.temperature, f.a, f.b, f.r2,
      f.serverCpu?.a ?? null, f.serverCpu?.b ?? null,
      f.points.map((p) => `N=${p.pageSize}: ${formatValue(p.latencyMs, 'ms')}`).join('; '),
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
    table: {
      columns: ['Protocol', 'Tool', 'Cache mode', 'Temperature', 'A (ms)', 'B (ms/row)', 'R²', 'server CPU A (µs)',
        'server CPU B (µs/row)', 'Measured points'],
      formats: [T, T, T, T, N, N, 'text', N, N, T],
      rows,
    },
  };
}

export function bodyBytesByPageSize(cells: Cell[], subtitle: string): ChartSpec {
  const series: SeriesSpec[] = [];
  const rows: CsvValue[][] = [];
  const sizes = [...new Set(cells.flatMap((c) => (c.pageSize === null ? [] : [c.pageSize])))].sort((a, b) => a - b);
  for (const { protocol, tool, tls } of seriesIds(cells)) {
    const mine = where(cells, { protocol, tool });
    const points: Datum[] = [];
    for (const n of sizes) {
      const cell = pickCell(where(mine, { pageSize: n }).filter((c) => c.summary.bodyBytes !== null));
      if (!cell) continue;
      const s = cell.summary;
      points.push({ x: n, y: s.bodyBytes!, cellId: cell.id });
      rows.push([protocolLabel(protocol, tls), tool, n, s.bodyBytes, s.wireBytesSentPerRequest, s.wireBytesReceivedPerRequest, cell.id]);
    }
    series.push({ label: seriesName(protocol, tool, tls), protocol, cacheMode: 'none', ...line(tool), data: points });
  }
  return {
    key: 'body-bytes-by-page-size',
    title: 'Response body size vs page size',
    subtitle,
    kind: 'line',
    xPoint: { before: 'N = ', after: '' },
    xTitle: 'Page size N (rows per response)',
    yTitle: 'Response body (B)',
    unit: 'B',
    series: keep(series),
    table: {
      columns: ['Protocol', 'Tool', 'Page size', 'Body (B)', 'Wire sent (B)', 'Wire received (B)', 'Cell'],
      formats: [T, T, I, N, N, N, T],
      rows,
    },
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
  const rowFlags: (string | null)[] = [];
  for (const { protocol, tool, tls } of seriesIds(cells)) {
    const mine = where(cells, { protocol, tool });
    const perLevel = levels.map((l) => states.map((s) => estimate(where(mine, { ...s }), l.pick)));
    levels.forEach((l, i) =>
      series.push({
        label: `${seriesName(protocol, tool, tls)} ${l.name}`, protocol, ...bar(tool, l.shade),
        // hit ratios are fractions in run.json; plotted in %
        data: perLevel[i].map((e) => {
          const d = datum(e);
          return d && { ...d, y: d.y * 100 };
        }),
      }),
    );
    states.forEach((s, j) => {
      const cell = pickCell(where(mine, { ...s }));
      if (!cell) return;
      rows.push([protocolLabel(protocol, tls), tool, s.cacheMode, s.temperature, perLevel[0][j].value, perLevel[1][j].value, perLevel[2][j].value, cell.id, flagReason(cell)]);
      rowFlags.push(flagReason(cell));
    });
  }
  const kept = keep(series);
  return {
    key: 'hit-ratio',
    title: 'Cache hit ratio per level',
    subtitle,
    kind: 'bar',
    categories: states.map(cacheStateLabel),
    xTitle: 'Cache mode · temperature',
    yTitle: 'Hit ratio (%)',
    unit: '%',
    notes: flagNotes(kept),
    series: kept,
    table: {
      columns: ['Protocol', 'Tool', 'Cache mode', 'Temperature', 'L1 hits', 'L2 hits', 'Overall hits', 'Cell', 'Flags'],
      formats: [T, T, T, T, 'fraction', 'fraction', 'fraction', T, T],
      rows,
      rowFlags,
    },
  };
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
  const rowFlags: (string | null)[] = [];
  for (const { protocol, tool, tls } of seriesIds(cells)) {
    const mine = where(cells, { protocol, tool });
    for (const { t, shade } of temps) {
      const es = modes.map((cacheMode) => estimate(where(mine, { cacheMode, temperature: t }), pick));
      series.push({ label: `${seriesName(protocol, tool, tls)} ${t === 'none' ? 'no cache' : t}`, protocol, ...bar(tool, shade), data: es.map((e) => datum(e)) });
      modes.forEach((m, i) => {
        const e = es[i];
        if (e.value === null) return;
        rows.push([protocolLabel(protocol, tls), tool, m, t, e.value, e.low, e.high, e.cell!.id, flagReason(e.cell!)]);
        rowFlags.push(flagReason(e.cell!));
      });
    }
  }
  const unit = which === 'p50' ? 'ms' : 'req/s';
  const yTitle = which === 'p50' ? 'Latency p50 (ms)' : 'Throughput (req/s)';
  const kept = keep(series);
  return {
    key: `temperature-${which}`,
    title: which === 'p50' ? 'Latency p50: cold, warm and no cache side by side' : 'Throughput: cold, warm and no cache side by side',
    subtitle,
    kind: 'bar',
    categories: modes.map((m) => CACHE_LABELS[m]),
    xTitle: 'Cache mode',
    yTitle,
    unit,
    errorBars: true,
    notes: flagNotes(kept),
    series: kept,
    table: {
      columns: ['Protocol', 'Tool', 'Cache mode', 'Temperature', yTitle, 'low', 'high', 'Cell', 'Flags'],
      formats: [T, T, T, T, N, N, N, T, T],
      rows,
      rowFlags,
    },
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

/** How B's interval lies against A's: overlapping, or wholly below or above it. */
export function intervalsCompare(a: Interval, b: Interval): 'overlap' | 'B lower' | 'B higher' | null {
  if (a.value === null || b.value === null) return null;
  const [al, ah] = [a.low ?? a.value, a.high ?? a.value];
  const [bl, bh] = [b.low ?? b.value, b.high ?? b.value];
  if (bh < al) return 'B lower';
  if (bl > ah) return 'B higher';
  return 'overlap';
}

/** Run A and run B side by side per cache state, each with its interval. */
export function compareChart(pairs: CellPair[], which: 'p50' | 'throughput', subtitle: string): ChartSpec {
  const cellsA = pairs.map((p) => p.a);
  const states = cacheStates(cellsA);
  const pick = which === 'p50' ? metrics.p50 : metrics.throughput;
  const series: SeriesSpec[] = [];
  const rows: CsvValue[][] = [];
  const rowFlags: (string | null)[] = [];
  for (const { protocol, tool, tls } of seriesIds(cellsA)) {
    const mine = pairs.filter((p) => p.a.protocol === protocol && p.a.tool === tool);
    const inState = states.map((s) => mine.find((p) => p.a.cacheMode === s.cacheMode && p.a.temperature === s.temperature) ?? null);
    for (const [run, shade] of [['A', 0.5], ['B', 0]] as const) {
      series.push({
        label: `${seriesName(protocol, tool, tls)} · run ${run}`, protocol, ...bar(tool, shade),
        data: inState.map((p) => (p ? datum({ ...pick(run === 'A' ? p.a : p.b), cell: run === 'A' ? p.a : p.b }) : null)),
      });
    }
    inState.forEach((p, i) => {
      if (!p) return;
      const [a, b] = [pick(p.a), pick(p.b)];
      const flag = [flagReason(p.a) && `A: ${flagReason(p.a)}`, flagReason(p.b) && `B: ${flagReason(p.b)}`].filter(Boolean).join('; ') || null;
      rows.push([protocolLabel(protocol, tls), tool, states[i].cacheMode, states[i].temperature, a.value, a.low, a.high, b.value, b.low, b.high, intervalsCompare(a, b), flag]);
      rowFlags.push(flag);
    });
  }
  const name = which === 'p50' ? 'p50 latency' : 'throughput';
  const unit = which === 'p50' ? 'ms' : 'req/s';
  const kept = keep(series);
  return {
    key: `compare-${which}`,
    title: `Run A and run B: ${name} (95 % intervals)`,
    subtitle: `${subtitle}; lighter bars run A, full bars run B`,
    kind: 'bar',
    categories: states.map(cacheStateLabel),
    xTitle: 'Cache mode · temperature',
    yTitle: which === 'p50' ? 'Latency p50 (ms)' : 'Throughput (req/s)',
    unit,
    errorBars: true,
    notes: flagNotes(kept),
    series: kept,
    table: {
      columns: ['Protocol', 'Tool', 'Cache mode', 'Temperature', `Run A (${unit})`, 'A low', 'A high', `Run B (${unit})`, 'B low', 'B high', 'Intervals', 'Flags'],
      formats: [T, T, T, T, N, N, N, N, N, N, T, T],
      rows,
      rowFlags,
    },
  };
}

/** Environment fields of two runs side by side (nested objects as dotted keys), with whether they differ. */
export function environmentRows(a: Record<string, unknown>, b: Record<string, unknown>): { key: string; a: string; b: string; differs: boolean }[] {
  const fa = flatten(a);
  const fb = flatten(b);
  const keys = [...new Set([...Object.keys(fa), ...Object.keys(fb)])];
  return keys.map((key) => {
    const va = show(fa[key], key);
    const vb = show(fb[key], key);
    return { key, a: va, b: vb, differs: va !== vb };
  });
}

function flatten(o: Record<string, unknown>, prefix = ''): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) {
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) Object.assign(out, flatten(v as Record<string, unknown>, `${prefix}${k}.`));
    else out[`${prefix}${k}`] = v;
  }
  return out;
}

/** An environment value as text; byte counts in B/kB/MB/GB. */
export function show(v: unknown, key = ''): string {
  if (v === undefined || v === null) return '—';
  if (Array.isArray(v)) return v.map((x) => show(x)).join(' ');
  if (typeof v === 'object') return JSON.stringify(v);
  if (typeof v === 'number' && /Bytes$/.test(key)) return formatBytes(v);
  return String(v);
}
