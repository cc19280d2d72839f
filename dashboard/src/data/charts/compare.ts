// The Compare view: two runs' cells matched by what they measured, side by side with their
// intervals, and the two environments.
import type { CsvValue } from '../csv';
import { formatBytes } from '../format';
import { protocolLabel, seriesName } from '../style';
import { cacheStateLabel, cacheStates, cellKey, estimate, flagReason, metrics, seriesIds, where } from '../transforms';
import type { Cell, Interval, Run } from '../types';
import { queueingLabels } from './overview';
import { bar, datum, flagNotes, keep, N, T, type ChartSpec, type SeriesSpec } from './spec';

export interface CellPair {
  key: string;
  a: Cell;
  b: Cell;
}

/**
 * The two runs compared as A (before) and B (after) by when they started, whichever of them was
 * chosen at the top: a link naming the newer run must not call it "before". On a tie, the chosen first.
 */
export function beforeAfter(chosen: Run, other: Run): [Run, Run] {
  return Date.parse(other.startedAt) < Date.parse(chosen.startedAt) ? [other, chosen] : [chosen, other];
}

/**
 * Cells of the two runs matched by what they measured (cellKey). A key two cells of one run share
 * matches nothing: which of them stands for the other run's cell could not be told.
 */
export function pairCells(a: Cell[], b: Cell[]): { pairs: CellPair[]; onlyA: number; onlyB: number } {
  const once = (cells: Cell[]) => {
    const byKey = new Map<string, Cell[]>();
    for (const c of cells) byKey.set(cellKey(c), [...(byKey.get(cellKey(c)) ?? []), c]);
    return new Map([...byKey].filter(([, cs]) => cs.length === 1).map(([k, cs]) => [k, cs[0]]));
  };
  const [inA, inB] = [once(a), once(b)];
  const pairs: CellPair[] = [];
  for (const [key, c] of inA) {
    const other = inB.get(key);
    if (other) pairs.push({ key, a: c, b: other });
  }
  return { pairs, onlyA: a.length - pairs.length, onlyB: b.length - pairs.length };
}

/**
 * How B's interval lies against A's: overlapping, or wholly below or above it. A cell without an
 * interval (a sweep cell) decides nothing: its value alone is no zero-width interval.
 */
export function intervalsCompare(a: Interval, b: Interval): 'overlap' | 'B lower' | 'B higher' | 'no interval' | null {
  if (a.value === null || b.value === null) return null;
  if (a.low === null || a.high === null || b.low === null || b.high === null) return 'no interval';
  const [al, ah, bl, bh] = [a.low, a.high, b.low, b.high];
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
    // of run A's cells in a state, the one the other views show (estimate: unflagged, most samples), with its pair
    const inState = states.map((s) => {
      const { cell } = estimate(where(mine.map((p) => p.a), { ...s }), pick);
      return mine.find((p) => p.a === cell) ?? null;
    });
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
  const base = { title: `Run A and run B: ${name} (95 % intervals)`, yTitle: which === 'p50' ? 'Latency p50 (ms)' : 'Throughput (req/s)', notes: flagNotes(kept) };
  const labels = which === 'p50' ? queueingLabels(cellsA, base.title, base.yTitle, base.notes) : base;
  return {
    key: `compare-${which}`,
    title: labels.title,
    subtitle: `${subtitle}; lighter bars run A, full bars run B`,
    kind: 'bar',
    categories: states.map(cacheStateLabel),
    xTitle: 'Cache mode · temperature',
    yTitle: labels.yTitle,
    unit,
    errorBars: true,
    notes: labels.notes,
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
export function environmentRows(a: object, b: object): { key: string; a: string; b: string; differs: boolean }[] {
  const fa = flatten(a);
  const fb = flatten(b);
  const keys = [...new Set([...Object.keys(fa), ...Object.keys(fb)])];
  return keys.map((key) => {
    const va = show(fa[key], key);
    const vb = show(fb[key], key);
    return { key, a: va, b: vb, differs: va !== vb };
  });
}

function flatten(o: object, prefix = ''): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) {
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) Object.assign(out, flatten(v, `${prefix}${k}.`));
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
