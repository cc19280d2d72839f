// Plain data transforms: filtering, grouping, ratios, fits. No React, no Chart.js.
import {
  CACHE_MODES,
  OPERATIONS,
  PROTOCOLS,
  TOOLS,
  type CacheMode,
  type Cell,
  type Flag,
  type Interval,
  type LoadModel,
  type Operation,
  type Protocol,
  type Temperature,
  type Tool,
} from './types';
import { formatCount, withUnit } from './format';
import { PROTOCOL_LABELS } from './style';
import { DEFAULT_FILTERS, type Filters } from './urlState';

// ---------- fits ----------

/** The run's fitted line A + B·N at N (drawing the bench's fit; the numbers shown are A, B, R²). */
export function fitValue(fit: { a: number; b: number }, n: number): number {
  return fit.a + fit.b * n;
}

// ---------- filters ----------

/** Whether a cell, fit or sweep ran over TLS (a fit of an older run says nothing: plain). */
export function isTls(c: { tls?: boolean }): boolean {
  return c.tls === true;
}

export interface FilterOptions {
  operations: Operation[];
  pageSizes: number[];
  concurrencies: number[];
  tools: Tool[];
  /** How the Tool filter names each tool: the wires it drove, "k6 (REST + gRPC)". */
  toolLabels: string[];
  models: LoadModel[];
  /** The open model's target rates at the chosen concurrency (none for the closed model). */
  rates: number[];
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
  /** The open model's target rate (null for the closed model). */
  rate: number | null;
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

/**
 * An automatic page size, concurrency or rate, made among the cells the charts will show (`shown`):
 * a value at which they show both wires where there is one, of those the one most cells have
 * (mostCommon); among `all` only when the charts would show none of them either way.
 */
function autoChoice(shown: Cell[], all: Cell[], value: (c: Cell) => number | null): number | null {
  const values = (of: Cell[]) => of.flatMap((c) => (value(c) === null ? [] : [value(c)!]));
  const bothWires = shown.filter((c) => PROTOCOLS.every((p) => shown.some((o) => o.protocol === p && value(o) === value(c))));
  return mostCommon(values(bothWires)) ?? mostCommon(values(shown)) ?? mostCommon(values(all));
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
  // Every automatic choice below is made among the cells the charts will show for the choices made
  // before it (charted, of the operation, model and tool): made over all the transport's cells, it
  // fell where other tools', other bodies' or traced cells were many, and the charts showed one wire
  // or nothing (the smoke run's landing page charted one REST bar at 4 users, its ListGroups nothing).
  // The options and the reader's own choices stay as they were.
  const charted = cells.filter((c) => isCharted(c) && c.operation === operation && c.model === model);
  const shown = charted.length > 0 ? charted : cells;
  const shownTools = distinct(shown.map((c) => c.tool)).sort(byOrder(TOOLS));
  // the asked tool when it ran (k6, the default, only where the charts show it); else one that drove
  // both wires; else all of them: the first tool alone charted one wire only in a run of native
  // generators (h2load for gRPC, oha for REST: the hotpath and protocols profiles), REST nowhere until
  // the reader found this filter
  const bothWires = shownTools.find((t) => PROTOCOLS.every((p) => shown.some((c) => c.tool === t && c.protocol === p)));
  const asked = f.tool === 'all' || (f.tool === DEFAULT_FILTERS.tool ? shownTools : tools).includes(f.tool);
  const tool = asked ? f.tool : (bothWires ?? (shownTools.length > 1 ? 'all' : (shownTools[0] ?? 'k6')));
  const ofTool = charted.filter((c) => tool === 'all' || c.tool === tool);

  const ofOp = cells.filter((c) => c.operation === operation && c.model === model);
  const pageSizes = distinct(ofOp.flatMap((c) => (c.pageSize === null ? [] : [c.pageSize]))).sort((a, b) => a - b);
  const pageSize =
    pageSizes.length === 0
      ? null
      : f.pageSize !== null && pageSizes.includes(f.pageSize)
        ? f.pageSize
        : autoChoice(ofTool, ofOp, (c) => c.pageSize);
  const ofPage = ofOp.filter((c) => c.pageSize === pageSize);
  const concurrencies = distinct(ofPage.map((c) => c.concurrency)).sort((a, b) => a - b);
  const concurrency =
    f.concurrency !== null && concurrencies.includes(f.concurrency)
      ? f.concurrency
      : autoChoice(ofTool.filter((c) => c.pageSize === pageSize), ofPage, (c) => c.concurrency);
  // an open model's cells at one concurrency can hold several target rates (a sweep's points, a
  // profile's target_rates): one rate at a time, or one bar would stand for cells at other rates
  const ofRate = model === 'open' ? ofPage.filter((c) => c.concurrency === concurrency && isCharted(c) && c.targetRate !== null) : [];
  const rates = distinct(ofRate.map((c) => c.targetRate!)).sort((a, b) => a - b);
  const rate =
    rates.length === 0
      ? null
      : f.rate !== null && rates.includes(f.rate)
        ? f.rate
        : autoChoice(ofRate.filter((c) => tool === 'all' || c.tool === tool), ofRate, (c) => c.targetRate);

  return {
    operation,
    pageSize,
    concurrency,
    tool,
    model,
    rate,
    temperature: f.temperature,
    tls,
    options: { operations, pageSizes, concurrencies, tools, toolLabels: tools.map((t) => toolLabel(t, cells)), models, rates, transports },
  };
}

export type FilterDim = 'pageSize' | 'concurrency';

/** Cells that pass the resolved filters; `free` dimensions are not filtered (they become an axis). */
/**
 * The body a wire answers by default: REST JSON over HTTP/1.1, gRPC Protobuf over HTTP/2, neither
 * compressed. The charts of the other views show these cells only; the Protobuf, HTTP/2 and gzip
 * variants of a REST cell (the protocols profile's) are in the Cells table and the decomposition.
 */
export function isDefaultBody(c: { protocol: Protocol; encoding?: string; http?: string; compression?: string; revalidate?: boolean }): boolean {
  const [asked, wire] = [bodyOf(c), bodyOf({ protocol: c.protocol })];
  return asked.encoding === wire.encoding && asked.http === wire.http && asked.compression === wire.compression && c.revalidate !== true;
}

/**
 * A cell's (or fit's) body with the schema's defaults filled in: a run from before the bench recorded
 * encoding, http and compression ran the wire's default body (REST JSON over HTTP/1.1, gRPC Protobuf
 * over HTTP/2, identity), so its cells are the same measurement as a newer run's that name it.
 */
function bodyOf(c: { protocol: Protocol; encoding?: string; http?: string; compression?: string }) {
  const [encoding, http] = c.protocol === 'rest' ? ['json', '1.1'] : ['protobuf', '2'];
  return { encoding: c.encoding ?? encoding, http: c.http ?? http, compression: c.compression ?? 'identity' };
}

/**
 * Whether a cell is one the charts show. Traced cells (the bench's tracing dimension) are priced by
 * their headline ratios, never charted beside the untraced service's; the charts' cells give each
 * user a connection of its own (a multiplexed cell, users sharing fewer connections, is another
 * measurement, in the Cells table), and overload steps have a view of their own: either would
 * stand for a cell it is not.
 */
function isCharted(c: Cell): boolean {
  return isDefaultBody(c) && c.tracing !== true && c.overload == null && c.connections === c.concurrency;
}

export function selectCells(cells: Cell[], r: Resolved, free: FilterDim[] = []): Cell[] {
  return cells.filter(
    (c) =>
      isCharted(c) &&
      c.operation === r.operation &&
      c.model === r.model &&
      (r.rate === null || c.targetRate === r.rate) &&
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

/** Protocol × tool pairs present, REST first, then the tools in TOOLS order (k6 first). */
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

/** A figure of a cell with its 95 % interval where run.json has one (low/high null otherwise). */
export type Pick = (c: Cell) => Interval;

const only = (value: number | null): Interval => ({ value, low: null, high: null });

export const metrics = {
  /** Pooled over every window's requests, with its bootstrap interval over the windows. */
  p50: (c: Cell) => c.summary.latencyIntervalMs.p50,
  /** Pooled over every window's requests, with its bootstrap interval over the windows. */
  p99: (c: Cell) => c.summary.latencyIntervalMs.p99,
  /** Pooled over every window's requests, like p50 and p99, but without an interval in run.json. */
  p95: (c: Cell) => only(c.summary.latencyMs.p95),
  throughput: (c: Cell) => c.summary.throughputRps,
  serverCpu: (c: Cell) => c.summary.cpuUsPerRequest.server,
  bodyBytes: (c: Cell) => only(c.summary.bodyBytes),
  wireSent: (c: Cell) => only(c.summary.wireBytesSentPerRequest),
  wireReceived: (c: Cell) => only(c.summary.wireBytesReceivedPerRequest),
  hitL1: (c: Cell) => only(c.summary.hitRatio.l1),
  hitL2: (c: Cell) => only(c.summary.hitRatio.l2),
  hitOverall: (c: Cell) => only(c.summary.hitRatio.overall),
} satisfies Record<string, Pick>;

/**
 * Flags the bench shows but that keep no window out of the headline ratios (something else used
 * CPU; a percentile lacked samples; the service was compiling): a cell with only these is not greyed,
 * its reasons still show.
 */
export const INFORMATIONAL_FLAGS: ReadonlySet<string> = new Set(['other-cpu', 'few-samples', 'jit']);

/** Whether a cell is flagged: a flag that excludes windows from the headline, or left out of it. */
export function isFlagged(c: Cell): boolean {
  return !c.headlineEligible || excludes(c.flags);
}

/**
 * Whether flags grey what they flag (a cell, a window, a sweep point): one not informational. The
 * one rule every view greys by; informational flags alone are shown as notes, not greyed.
 */
export function excludes(flags: Flag[]): boolean {
  return flags.some((f) => !INFORMATIONAL_FLAGS.has(f.code));
}

/**
 * Why a cell is greyed: the plain-words reasons it is flagged (the bench's own), or null when it is
 * not flagged (isFlagged) — a cell with informational flags only is not greyed, and allFlags still
 * gives their reasons. A flag the bench repeats for several windows ("start 1 round 1: …", "start 1 round 2: …") is given
 * once, with how many more windows share it; allFlags has every reason.
 */
export function flagReason(c: Cell): string | null {
  if (!isFlagged(c)) return null;
  return flagsSummary(c.flags) ?? 'left out of the headline ratios by the bench';
}

/**
 * The flags of a cell that is not greyed (other-cpu, few-samples, jit: the bench keeps their windows
 * in the headline), in short, or null: shown beside the cell as the end-of-run text's flags column
 * names them, not greyed. A greyed cell's flagReason already names every flag.
 */
export function keptFlags(c: Cell): string | null {
  return isFlagged(c) ? null : flagsSummary(c.flags);
}

/** Flags in short: each code once ("start 1 round 1: …"), with how many more windows share it; or null. */
export function flagsSummary(flags: Flag[]): string | null {
  if (flags.length === 0) return null;
  const byCode = new Map<string, Flag[]>();
  for (const f of flags) byCode.set(f.code, [...(byCode.get(f.code) ?? []), f]);
  return [...byCode.values()]
    .map((fs) => (fs.length > 1 ? `${fs[0].reason} (and ${fs.length - 1} more window${fs.length > 2 ? 's' : ''} flagged ${fs[0].code})` : fs[0].reason))
    .join('; ');
}

/** Every flag reason of a cell, as the bench wrote them, or null. */
export function allFlags(c: Cell): string | null {
  return c.flags.length > 0 ? flagsText(c.flags) : flagReason(c);
}

/** Reasons of a list of flags (window or sweep point), or null. */
export function flagsText(flags: Flag[]): string | null {
  return flags.length > 0 ? flags.map((f) => f.reason).join('; ') : null;
}

/**
 * The one cell that stands for a group (usually exactly one matches): an unflagged one before a
 * flagged one, then the one with the most samples. The dashboard shows that cell's figures as
 * run.json holds them; it does not average cells.
 */
export function pickCell(cells: Cell[]): Cell | null {
  if (cells.length === 0) return null;
  return [...cells].sort((a, b) => Number(isFlagged(a)) - Number(isFlagged(b)) || b.summary.samples - a.summary.samples)[0];
}

/** A figure of the cell that stands for the group, and that cell. */
export function estimate(cells: Cell[], pick: Pick): Interval & { cell: Cell | null } {
  const c = pickCell(cells.filter((x) => pick(x).value !== null)) ?? null;
  return c ? { ...pick(c), cell: c } : { value: null, low: null, high: null, cell: null };
}

export function where(cells: Cell[], match: Partial<Cell>): Cell[] {
  const keys = Object.keys(match) as (keyof Cell)[];
  return cells.filter((c) => keys.every((k) => c[k] === match[k]));
}

/**
 * A cell's identity across runs: everything that defines the measurement, not its id. The body with
 * its defaults (bodyOf): an older run, which names none, pairs with a newer run's default-body cell.
 */
export function cellKey(c: Cell): string {
  const body = bodyOf(c);
  return [c.protocol, c.tool, c.transport, c.operation, c.pageSize ?? '-', c.cacheMode, c.temperature, c.model, c.concurrency,
    c.connections, c.targetRate ?? '-', isTls(c) ? 'tls' : 'plain', body.encoding, body.http, body.compression,
    c.revalidate ? 'revalidate' : '-', c.tracing ? 'traced' : '-', c.overload ? `${c.overload.pair}@${c.overload.step ?? 'capacity'}` : '-',
  ].join('|');
}

/** Which wires a tool drove in these cells, for the Tool filter: "k6 (REST + gRPC)", "ghz (gRPC)". */
export function toolLabel(tool: Tool, cells: Cell[]): string {
  const wires = PROTOCOLS.filter((p) => cells.some((c) => c.tool === tool && c.protocol === p));
  return wires.length === 0 ? tool : `${tool} (${wires.map((p) => PROTOCOL_LABELS[p]).join(' + ')})`;
}

/** An open model's target rate: "12,000/s". */
export function rateLabel(rate: number): string {
  return withUnit(formatCount(rate), '/s');
}

export function users(n: number): string {
  return `${n} ${n === 1 ? 'user' : 'users'}`;
}

export function describeFilters(r: Resolved, free: FilterDim[] = []): string {
  const parts: string[] = [r.operation];
  if (r.pageSize !== null && !free.includes('pageSize')) parts.push(`page size ${r.pageSize}`);
  if (r.concurrency !== null && !free.includes('concurrency')) parts.push(users(r.concurrency));
  parts.push(r.tool === 'all' ? 'all tools' : r.tool);
  parts.push(r.model === 'open' && r.rate !== null ? `open model at ${rateLabel(r.rate)}` : `${r.model} model`);
  if (r.tls || r.options.transports.length > 1) parts.push(r.tls ? 'over TLS' : 'plain TCP');
  return parts.join(', ');
}
