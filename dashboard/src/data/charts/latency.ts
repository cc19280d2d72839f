// The Latency view: each cell's percentile spectrum, and latency against throughput from the
// open-model rate sweeps with their knees.
import type { CsvValue } from '../csv';
import { formatNumber, formatPercentile, formatValue } from '../format';
import { protocolLabel, seriesName, toolShade } from '../style';
import { excludes, flagReason, flagsSummary, isTls } from '../transforms';
import { CACHE_MODES, PROTOCOLS, TEMPERATURES, TOOLS, type Cell, type Sweep } from '../types';
import { queueingLabels } from './overview';
import { flagNotes, I, keep, line, N, stateName, T, type ChartSpec, type Datum, type Marker, type SeriesSpec } from './spec';

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
  const shown = queueingLabels(cells, 'Latency percentile spectrum (pooled over all windows)', 'Latency (ms, log scale)', flagNotes(kept));
  return {
    key: 'latency-spectrum',
    title: shown.title,
    subtitle: `${subtitle}; each line ends at the highest percentile its sample count supports`,
    kind: 'line',
    xTitle: 'Percentile (log scale of 1/(1−p))',
    yTitle: shown.yTitle,
    unit: 'ms',
    xAxis: 'percentile',
    yLog: true,
    notes: shown.notes,
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
            // greyed as its cell is (isFlagged): informational flags alone are noted, not greyed
            flag: excludes(p.flags) ? flagsSummary(p.flags) : null,
            cellId: p.cellId,
          }];
    series.push({ label: `${name} p50`, protocol: s.protocol, cacheMode: 'none', shade, data: pts.flatMap((p) => at(p, p.p50)) });
    series.push({ label: `${name} p99`, protocol: s.protocol, dash: [6, 4], shade, data: pts.flatMap((p) => at(p, p.p99)) });
    for (const p of s.points) {
      const reasons = flagsSummary(p.flags);
      const flag = excludes(p.flags) ? reasons : null;
      rows.push([sweepName(s), p.targetRate, p.achievedRate, p.throughputRps, p.p50, p.p99, p.p999, p.droppedIterations, p.errorRate, p.cellId, reasons]);
      rowFlags.push(flag);
      if (reasons) notes.push(`${flag ? 'Greyed' : 'Noted, kept in the headline'}: ${p.cellId} — ${reasons}`);
    }
    if (s.knee) {
      // a knee whose throughput was not measured is named in the notes, with no line to draw
      if (s.knee.throughputRps !== null) markers.push({ x: s.knee.throughputRps, label: `${name} knee`, protocol: s.protocol, shade });
      knees.push(
        `${name} knee at ${formatValue(s.knee.throughputRps, 'req/s')} (target ${formatValue(s.knee.targetRate, '/s')}): ${s.knee.reason}`,
      );
    } else if (s.saturatedAtLowest) {
      // not "no knee": the knee lies at or below the lowest rate the sweep tried
      knees.push(`${name}: saturated at or below its lowest rate (${formatValue(s.saturatedAtLowest.targetRate, '/s')}): ${s.saturatedAtLowest.reason}`);
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
