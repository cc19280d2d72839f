// Plain data transforms: filtering, grouping, ratios, fits. No React, no Chart.js.
import {
  CACHE_MODES,
  OPERATIONS,
  PROTOCOLS,
  TOOLS,
  type CacheMode,
  type Cell,
  type LoadModel,
  type Measurement,
  type Operation,
  type Protocol,
  type Temperature,
  type Tool,
} from './types';
import type { Filters } from './urlState';

// ---------- numbers ----------

export function median(values: number[]): number | null {
  const v = values.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (v.length === 0) return null;
  const mid = Math.floor(v.length / 2);
  return v.length % 2 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
}

/** Rounds derived numbers so that tables and tooltips do not show float noise. */
export function round(x: number | null, digits = 4): number | null {
  if (x === null || !Number.isFinite(x)) return null;
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

/** a ÷ b, or null when either is missing or b is zero. */
export function ratio(a: number | null | undefined, b: number | null | undefined): number | null {
  if (a === null || a === undefined || b === null || b === undefined || b === 0) return null;
  return round(a / b);
}

/** How much `after` improves on `before`, in %, for a lower-is-better metric (latency). */
export function reductionPct(before: number | null, after: number | null): number | null {
  if (before === null || after === null || before === 0) return null;
  return round(((before - after) / before) * 100, 2);
}

/** How much `after` improves on `before`, in %, for a higher-is-better metric (throughput). */
export function gainPct(before: number | null, after: number | null): number | null {
  if (before === null || after === null || before === 0) return null;
  return round((after / before - 1) * 100, 2);
}

// ---------- fits ----------

export interface LinearFit {
  a: number;
  b: number;
  r2: number | null;
}

/** Least squares y = a + b·x. Null with fewer than two distinct x. */
export function linearFit(points: { x: number; y: number }[]): LinearFit | null {
  const n = points.length;
  if (n < 2) return null;
  const mx = points.reduce((s, p) => s + p.x, 0) / n;
  const my = points.reduce((s, p) => s + p.y, 0) / n;
  const sxx = points.reduce((s, p) => s + (p.x - mx) ** 2, 0);
  if (sxx === 0) return null;
  const sxy = points.reduce((s, p) => s + (p.x - mx) * (p.y - my), 0);
  const b = sxy / sxx;
  const a = my - b * mx;
  const ssTot = points.reduce((s, p) => s + (p.y - my) ** 2, 0);
  const ssRes = points.reduce((s, p) => s + (p.y - (a + b * p.x)) ** 2, 0);
  return { a, b, r2: ssTot === 0 ? null : 1 - ssRes / ssTot };
}

export function fitValue(fit: { a: number; b: number }, n: number): number {
  return fit.a + fit.b * n;
}

// ---------- filters ----------

/** Whether a cell (or fit) ran over TLS; cells of runs written before the tls dimension ran plain. */
export function isTls(c: { tls?: boolean }): boolean {
  return c.tls === true;
}

export interface FilterOptions {
  operations: Operation[];
  pageSizes: number[];
  concurrencies: number[];
  tools: Tool[];
  models: LoadModel[];
  /** The transports present: [false] for a run without TLS cells, [false, true] with both. */
  transports: boolean[];
}

/** The filters with every "auto" choice made from the data. */
export interface Resolved {
  operation: Operation;
  pageSize: number | null;
  concurrency: number | null;
  tool: Tool | 'all';
  model: LoadModel;
  temperature: 'warm' | 'cold';
  tls: boolean;
  options: FilterOptions;
}

export function distinct<T>(values: T[]): T[] {
  return [...new Set(values)];
}

function byOrder<T>(order: readonly T[]) {
  return (a: T, b: T) => order.indexOf(a) - order.indexOf(b);
}

/** The value that most cells have; on a tie the smallest. */
export function mostCommon(values: number[]): number | null {
  const counts = new Map<number, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  let best: number | null = null;
  for (const [v, c] of counts) {
    const bc = best === null ? -1 : counts.get(best)!;
    if (c > bc || (c === bc && v < best!)) best = v;
  }
  return best;
}

export function resolveFilters(allCells: Cell[], f: Filters): Resolved {
  // the transport first: every other choice is made among the cells of that transport
  const transports = distinct(allCells.map(isTls)).sort((a, b) => Number(a) - Number(b));
  const tls = transports.includes(f.tls) ? f.tls : (transports[0] ?? false);
  const cells = allCells.filter((c) => isTls(c) === tls);
  const operations = distinct(cells.map((c) => c.operation)).sort(byOrder(OPERATIONS));
  const operation =
    f.operation && operations.includes(f.operation)
      ? f.operation
      : operations.includes('GetGroup')
        ? 'GetGroup'
        : (operations[0] ?? 'GetGroup');
  const models = distinct(cells.map((c) => c.model)).sort();
  const model = models.includes(f.model) ? f.model : (models[0] ?? 'closed');
  const tools = distinct(cells.map((c) => c.tool)).sort(byOrder(TOOLS));
  const tool = f.tool === 'all' || tools.includes(f.tool) ? f.tool : (tools[0] ?? 'k6');

  const ofOp = cells.filter((c) => c.operation === operation && c.model === model);
  const pageSizes = distinct(ofOp.flatMap((c) => (c.pageSize === null ? [] : [c.pageSize]))).sort((a, b) => a - b);
  const pageSize =
    pageSizes.length === 0
      ? null
      : f.pageSize !== null && pageSizes.includes(f.pageSize)
        ? f.pageSize
        : mostCommon(ofOp.flatMap((c) => (c.pageSize === null ? [] : [c.pageSize])));
  const ofPage = ofOp.filter((c) => c.pageSize === pageSize);
  const concurrencies = distinct(ofPage.map((c) => c.concurrency)).sort((a, b) => a - b);
  const concurrency =
    f.concurrency !== null && concurrencies.includes(f.concurrency)
      ? f.concurrency
      : mostCommon(ofPage.map((c) => c.concurrency));

  return {
    operation,
    pageSize,
    concurrency,
    tool,
    model,
    temperature: f.temperature,
    tls,
    options: { operations, pageSizes, concurrencies, tools, models, transports },
  };
}

export type FilterDim = 'pageSize' | 'concurrency';

/** Cells that pass the resolved filters; `free` dimensions are not filtered (they become an axis). */
export function selectCells(cells: Cell[], r: Resolved, free: FilterDim[] = []): Cell[] {
  return cells.filter(
    (c) =>
      c.operation === r.operation &&
      c.model === r.model &&
      isTls(c) === r.tls &&
      (r.tool === 'all' || c.tool === r.tool) &&
      (free.includes('pageSize') || c.pageSize === r.pageSize) &&
      (free.includes('concurrency') || c.concurrency === r.concurrency),
  );
}

// ---------- grouping ----------

export interface SeriesId {
  protocol: Protocol;
  tool: Tool;
  /** The cells of the series ran over TLS (the views select one transport at a time). */
  tls: boolean;
}

/** Protocol × tool pairs present, REST first, k6 before ghz. */
export function seriesIds(cells: Cell[]): SeriesId[] {
  const ids: SeriesId[] = [];
  for (const protocol of PROTOCOLS) {
    for (const tool of TOOLS) {
      const of = cells.filter((c) => c.protocol === protocol && c.tool === tool);
      if (of.length > 0) ids.push({ protocol, tool, tls: of.every(isTls) });
    }
  }
  return ids;
}

export interface CacheState {
  cacheMode: CacheMode;
  temperature: Temperature;
}

/**
 * Cache mode × temperature pairs present: no cache first, then each mode cold then warm.
 * (Hello cells have temperature none under any mode: they touch no cache.)
 */
export function cacheStates(cells: Cell[]): CacheState[] {
  const states: CacheState[] = [];
  for (const cacheMode of CACHE_MODES) {
    for (const temperature of ['none', 'cold', 'warm'] as Temperature[]) {
      if (cells.some((c) => c.cacheMode === cacheMode && c.temperature === temperature)) {
        states.push({ cacheMode, temperature });
      }
    }
  }
  return states;
}

export function cacheStateLabel(s: CacheState): string {
  if (s.cacheMode === 'none') return 'no cache';
  return s.temperature === 'none' ? `${s.cacheMode} (not used)` : `${s.cacheMode} · ${s.temperature}`;
}

export type Pick = (m: Measurement) => number | null;

export const metrics = {
  p50: (m: Measurement) => m.latencyMs.p50,
  p95: (m: Measurement) => m.latencyMs.p95,
  p99: (m: Measurement) => m.latencyMs.p99,
  throughput: (m: Measurement) => m.throughputRps,
  bodyBytes: (m: Measurement) => m.bodyBytes,
  wireSent: (m: Measurement) => m.wireBytesSentPerRequest,
  wireReceived: (m: Measurement) => m.wireBytesReceivedPerRequest,
  hitL1: (m: Measurement) => m.hitRatio.l1,
  hitL2: (m: Measurement) => m.hitRatio.l2,
  hitOverall: (m: Measurement) => m.hitRatio.overall,
} satisfies Record<string, Pick>;

/** The median of a metric over the cells' summaries (usually exactly one cell matches). */
export function summaryValue(cells: Cell[], pick: Pick): number | null {
  const values = cells.map((c) => pick(c.summary)).filter((v): v is number => v !== null);
  return median(values);
}

export function where(cells: Cell[], match: Partial<Cell>): Cell[] {
  const keys = Object.keys(match) as (keyof Cell)[];
  return cells.filter((c) => keys.every((k) => c[k] === match[k]));
}

/** A cell's identity across runs: everything that defines the measurement, not its id. */
export function cellKey(c: Cell): string {
  return [c.protocol, c.tool, c.operation, c.pageSize ?? '-', c.cacheMode, c.temperature, c.model, c.concurrency,
    isTls(c) ? 'tls' : 'plain'].join('|');
}

export function users(n: number): string {
  return `${n} ${n === 1 ? 'user' : 'users'}`;
}

export function describeFilters(r: Resolved, free: FilterDim[] = []): string {
  const parts: string[] = [r.operation];
  if (r.pageSize !== null && !free.includes('pageSize')) parts.push(`page size ${r.pageSize}`);
  if (r.concurrency !== null && !free.includes('concurrency')) parts.push(users(r.concurrency));
  parts.push(r.tool === 'all' ? 'all tools' : r.tool);
  parts.push(`${r.model} model`);
  if (r.tls || r.options.transports.length > 1) parts.push(r.tls ? 'over TLS' : 'plain TCP');
  return parts.join(', ');
}
