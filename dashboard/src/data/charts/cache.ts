// The Cache view: hit ratios per level, and each figure cold, warm and without a cache side by side.
import type { CsvValue } from '../csv';
import { CACHE_LABELS, protocolLabel, seriesName } from '../style';
import { cacheStateLabel, cacheStates, estimate, flagReason, metrics, pickCell, seriesIds, where, type Pick } from '../transforms';
import { CACHE_MODES, type Cell, type Temperature } from '../types';
import { queueingLabels } from './overview';
import { bar, datum, flagNotes, keep, N, T, type ChartSpec, type SeriesSpec } from './spec';

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
  // a shade each, so the legend tells no cache from warm (both were the full colour)
  const temps: { t: Temperature; shade: number }[] = [
    { t: 'none', shade: 0.7 },
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
  const kept = keep(series);
  const { title, yTitle, notes } = which === 'p50'
    ? queueingLabels(cells, 'Latency p50: cold, warm and no cache side by side', 'Latency p50 (ms)', flagNotes(kept))
    : { title: 'Throughput: cold, warm and no cache side by side', yTitle: 'Throughput (req/s)', notes: flagNotes(kept) };
  return {
    key: `temperature-${which}`,
    title,
    subtitle,
    kind: 'bar',
    categories: modes.map((m) => CACHE_LABELS[m]),
    xTitle: 'Cache mode',
    yTitle,
    unit,
    errorBars: true,
    notes,
    series: kept,
    table: {
      columns: ['Protocol', 'Tool', 'Cache mode', 'Temperature', yTitle, 'low', 'high', 'Cell', 'Flags'],
      formats: [T, T, T, T, N, N, N, T, T],
      rows,
      rowFlags,
    },
  };
}
