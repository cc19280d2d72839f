// The Concurrency view: a figure against the number of concurrent users, one line per protocol,
// tool and cache mode.
import type { CsvValue } from '../csv';
import { protocolLabel, seriesName } from '../style';
import { estimate, metrics, seriesIds, where, type Pick } from '../transforms';
import { CACHE_MODES, type Cell, type Temperature } from '../types';
import { queueingLabels } from './overview';
import { datum, flagNotes, I, keep, line, N, stateName, T, type ChartSpec, type Datum, type SeriesSpec } from './spec';

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
  // the percentiles pool every window's requests (windows.py percentile_ms); p50 and p99 carry a
  // bootstrap interval over the windows, p95 none
  { key: 'p50', title: 'Latency p50 vs concurrent users (pooled over windows, 95 % intervals)', yTitle: 'Latency p50 (ms)', unit: 'ms', pick: metrics.p50, interval: true },
  { key: 'p95', title: 'Latency p95 vs concurrent users (pooled over windows, no interval)', yTitle: 'Latency p95 (ms)', unit: 'ms', pick: metrics.p95, interval: false },
  { key: 'p99', title: 'Latency p99 vs concurrent users (pooled over windows, 95 % intervals)', yTitle: 'Latency p99 (ms)', unit: 'ms', pick: metrics.p99, interval: true },
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
  const labels = m.unit === 'ms' ? queueingLabels(cells, m.title, m.yTitle, flagNotes(kept)) : { title: m.title, yTitle: m.yTitle, notes: flagNotes(kept) };
  return {
    key: `concurrency-${m.key}`,
    title: labels.title,
    subtitle,
    kind: 'line',
    xPoint: { before: '', after: ' users' },
    xTitle: 'Concurrent users (virtual users / connections)',
    yTitle: labels.yTitle,
    unit: m.unit,
    xAxis: min > 0 && max / min >= 20 ? 'log' : 'linear',
    errorBars: m.interval,
    notes: labels.notes,
    series: kept,
    table: {
      columns: ['Protocol', 'Tool', 'Cache mode', 'Temperature', 'Users', labels.yTitle, 'low', 'high', 'Cell', 'Flags'],
      formats: [T, T, T, T, I, N, N, N, T, T],
      rows,
      rowFlags,
    },
  };
}
