// The Over time view: one cell's windows, per 250 ms slice.
import type { CsvValue } from '../csv';
import { excludes, flagsText } from '../transforms';
import type { Cell } from '../types';
import { I, keep, N, T, type ChartSpec, type Datum, type SeriesSpec } from './spec';

/**
 * "start 1 · round 2": a window by its service start and round, counted from 1 as the bench's flag
 * reasons name it ("start 1 round 2: …", assemble.py); run.json stores both from 0.
 */
export function windowName(w: { start: number; round: number }): string {
  return `start ${w.start + 1} · round ${w.round + 1}`;
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
    // greyed as a cell is (isFlagged): a window with informational flags only stays in the headline,
    // its reasons noted
    const reasons = flagsText(w.flags);
    const flag = excludes(w.flags) ? reasons : null;
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
    if (reasons) notes.push(`${flag ? 'Greyed' : 'Noted, kept in the headline'}: ${windowName(w)} — ${reasons}`);
    for (const s of w.timeline) {
      rows.push(which === 'latency' ? [windowName(w), w.order, s.t, s.p50, s.p99, reasons] : [windowName(w), w.order, s.t, s.rps, reasons]);
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
