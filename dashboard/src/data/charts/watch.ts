// The WatchGroup cells (profile [[watch]] blocks, run.json `watch`): how long a change took to reach
// a client holding a watch, per wire, cache mode and load write rate. A watch run has no other
// cells, so without this the dashboard showed nothing it measured. The figures are the ones the
// end-of-run text prints (report.py watch_lines), as run.json holds them: nearest-rank percentiles
// over every change of the record, without intervals (the bench gives none; the spread of its
// windows' p50s stands beside them).
import type { CsvValue } from '../csv';
import { formatCount, formatNumber } from '../format';
import { PROTOCOL_LABELS } from '../style';
import type { Run, WatchCell } from '../types';
import { I, keep, N, T, type ChartSpec, type SeriesSpec, type TableSpec } from './spec';

export function watchRecords(run: Run): WatchCell[] {
  // absent in runs without [[watch]] blocks and in runs older than them
  return run.watch ?? [];
}

/** "REST · sse · hybrid · 200 writes/s". */
export function watchName(w: WatchCell): string {
  return `${PROTOCOL_LABELS[w.protocol]} · ${w.client} · ${w.cacheMode} · ${formatNumber(w.writeRate)} writes/s`;
}

/**
 * Why a record is greyed: changes its watches never received, or errors (the text prints both
 * beside the counts); null when every change arrived.
 */
export function watchFlag(w: WatchCell): string | null {
  const s = w.summary;
  const why = [
    ...(s.missed > 0 ? [`${formatCount(s.missed)} changes missed`] : []),
    ...(s.errors > 0 ? [`${formatCount(s.errors)} error${s.errors > 1 ? 's' : ''}`] : []),
  ];
  return why.length ? why.join(', ') : null;
}

/** "71.9–74.7" (the smallest and largest window p50), or null when no window had enough changes for one. */
function spread(w: WatchCell): string | null {
  const r = w.summary.windowP50Ms;
  return r ? `${formatNumber(r.min)}–${formatNumber(r.max)}` : null;
}

export function watchTable(records: WatchCell[]): TableSpec & { formats: NonNullable<TableSpec['formats']>; rowFlags: (string | null)[] } {
  const rows: CsvValue[][] = records.map((w) => {
    const s = w.summary;
    return [PROTOCOL_LABELS[w.protocol], w.client, w.cacheMode, w.watchers, w.writeRate, s.achievedWriteRate, s.changes, s.missed, s.errors,
      s.latencyMs.p50, s.latencyMs.p99, s.latencyMs.max, spread(w), s.fromRequestMs.p50, s.fromRequestMs.p99, w.id];
  });
  return {
    columns: ['Wire', 'Client', 'Cache mode', 'Watches', 'Load writes asked (/s)', 'Load writes achieved (/s)', 'Changes', 'Missed', 'Errors',
      'p50 (ms)', 'p99 (ms)', 'max (ms)', 'Window p50s (ms)', 'From request p50 (ms)', 'From request p99 (ms)', 'Record'],
    formats: [T, T, T, I, N, N, I, I, I, N, N, N, T, N, N, T],
    rows,
    rowFlags: records.map(watchFlag),
  };
}

/** p50 and p99 of change-to-client latency per record: a bar each, none where the bench has no figure. */
export function watchChart(records: WatchCell[]): ChartSpec {
  const series: SeriesSpec[] = (['rest', 'grpc'] as const).flatMap((protocol) =>
    (['p50', 'p99'] as const).map((p, k) => ({
      label: `${PROTOCOL_LABELS[protocol]} ${p}`,
      protocol,
      shade: k === 0 ? 0 : 0.45,
      data: records.map((w) => {
        const y = w.summary.latencyMs[p];
        return w.protocol === protocol && y !== null ? { y, flag: watchFlag(w), cellId: w.id } : null;
      }),
    })),
  );
  const kept = keep(series);
  const notes = [
    ...records.filter((w) => w.summary.latencyMs.p99 === null)
      .map((w) => `${watchName(w)}: no p99 — ${formatCount(w.summary.latencyMs.n)} changes, a p99 needs 1,000`),
    ...records.flatMap((w) => {
      const f = watchFlag(w);
      return f ? [`Greyed: ${watchName(w)} — ${f}`] : [];
    }),
  ];
  const table = watchTable(records);
  return {
    key: 'watch-latency',
    title: 'Change to client: p50 and p99',
    subtitle: 'from a write’s answer to the watch’s receipt of the changed group; nearest-rank over every change, no interval (the table gives the windows’ p50s)',
    kind: 'bar',
    categories: records.map(watchName),
    xTitle: 'Wire · client · cache mode · load writes',
    yTitle: 'Change to client (ms)',
    unit: 'ms',
    skipNull: true,
    emptyText: 'This run has no WatchGroup cells.',
    notes,
    series: kept,
    table,
  };
}
