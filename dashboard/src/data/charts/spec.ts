// What a chart is, as plain data: its series of points and the table of the plotted numbers, built
// from a run by the modules beside this one (one per view) and drawn by chartConfig.ts and
// components/ChartCard.tsx. Every plotted number is a figure of run.json as it stands there (no
// averaging across cells, no ratios made here); a cell or window the bench flagged is drawn grey,
// with the bench's reason in the tooltip, the notes under the chart and the table's Flags column.
// Below the types: the helpers every chart module shares.
import type { CsvValue } from '../csv';
import type { ColumnFormat } from '../format';
import { toolShade } from '../style';
import { flagReason } from '../transforms';
import type { CacheMode, Cell, Interval, Protocol, Temperature, Tool } from '../types';

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
  /** Stacked bars: the series with the same stack are drawn one on another in a category. */
  stack?: string;
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
  /** Bars: the series are parts of a whole, stacked by their `stack`. */
  stacked?: boolean;
  /** What an empty chart says instead of "no cells match the filters" (e.g. a run that lacks the figure). */
  emptyText?: string;
  markers?: Marker[];
  /** Shown under the chart: flagged cells and windows with the reasons, knees with theirs. */
  notes?: string[];
  series: SeriesSpec[];
  table: TableSpec;
}

/** Bars: the shade tells the variant (p50/p99, L1/L2, cold/warm); single-wire tools are hatched. */
export const bar = (tool: Tool, shade = 0) => ({ shade, hatched: tool !== 'k6' });
/** Lines: the line style tells the cache mode; single-wire tools are a lighter shade. */
export const line = (tool: Tool) => ({ shade: toolShade(tool) });

/** Drops series with nothing to plot. */
export function keep(series: SeriesSpec[]): SeriesSpec[] {
  return series.filter((s) => s.data.some((d) => d !== null));
}

/** A cell's figure as a plotted point (null when run.json has none). */
export function datum(e: Interval & { cell: Cell | null }, x?: number): Datum | null {
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
export function flagNotes(series: SeriesSpec[]): string[] {
  const seen = new Map<string, string>();
  for (const s of series) {
    for (const d of s.data) {
      if (d?.flag && d.cellId && !seen.has(d.cellId)) seen.set(d.cellId, d.flag);
    }
  }
  return [...seen].map(([id, reason]) => `Greyed: ${id} — ${reason}`);
}

/** A cache state in words: "no cache", "hybrid warm", "hybrid (not used)" (Hello touches none). */
export function stateName(s: { cacheMode: CacheMode; temperature: Temperature }): string {
  if (s.cacheMode === 'none') return 'no cache';
  return s.temperature === 'none' ? `${s.cacheMode} (not used)` : `${s.cacheMode} ${s.temperature}`;
}

/** Table column formats, short: text, integer, number at three digits. */
export const T = 'text' as const;
export const I = 'int' as const;
export const N = 'num' as const;
