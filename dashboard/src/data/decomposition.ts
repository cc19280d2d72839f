// "Where the difference comes from": the bench's step ratios (run.json headline step*), which take
// gRPC ÷ REST apart one change at a time — REST JSON → REST Protobuf (the encoding), → over HTTP/2
// (framing and the connection model), → gRPC (what is left: gRPC's own machinery) — and what gzip
// costs each wire, what a client that revalidates saves, and the hot path against its goals. Every
// plotted number is a headline of run.json; the one figure made here is each step's share of the
// gap, which only adds logarithms of those numbers.
import type { ChartSpec, Datum, SeriesSpec } from './charts/spec';
import { formatBounds, type ColumnFormat } from './format';
import type { CsvValue } from './csv';
import type { Cell, Headline, Protocol } from './types';

export interface Step {
  key: string;
  /** What changes between the two cells of each pair (the view's text says it in full). */
  label: string;
  /** Whose side the step's numerator is on. */
  protocol: Protocol;
}

export const STEPS: Step[] = [
  { key: 'Encoding', label: 'JSON → Protobuf', protocol: 'rest' },
  { key: 'Http2', label: 'HTTP/1.1 → HTTP/2', protocol: 'rest' },
  { key: 'Grpc', label: 'REST → gRPC', protocol: 'grpc' },
];

export interface StepFigure {
  key: 'ServerCpu' | 'Throughput';
  title: string;
  yTitle: string;
  /**
   * The headline measuring the whole gap directly over the steps' own pairs (gRPC ÷ REST JSON over
   * HTTP/1.1 for exactly the operations, page sizes and users the steps pair), which the product of the
   * steps is set beside.
   */
  direct: string;
  /**
   * gRPC ÷ REST over every warm closed pair of the run (the Overview's card), which may hold pairs the
   * steps never measured (ListGroups(20) at 500 users, k6's reference pair, TLS): shown, named as
   * such, only for a run older than `direct`.
   */
  allPairs: string;
  reading: string;
}

export const STEP_FIGURES: StepFigure[] = [
  {
    key: 'ServerCpu', title: 'Server CPU per request, step by step', yTitle: 'after ÷ before (server CPU per request, log scale)',
    direct: 'stepDirectServerCpu', allPairs: 'grpcOverRestServerCpuPerRequest', reading: 'below 1: the step saves the server work',
  },
  {
    key: 'Throughput', title: 'Throughput, step by step', yTitle: 'after ÷ before (successful requests per second, log scale)',
    direct: 'stepDirectThroughput', allPairs: 'grpcOverRestThroughputWarm', reading: 'above 1: the step serves more',
  },
];

export const GZIP_HEADLINES: { key: string; label: string; protocol: Protocol }[] = [
  { key: 'gzipOverIdentityServerCpuRest', label: 'REST', protocol: 'rest' },
  { key: 'gzipOverIdentityServerCpuGrpc', label: 'gRPC', protocol: 'grpc' },
];

/** A REST client that revalidates its copy (If-None-Match → 304, no body) ÷ one that reads it whole. */
export const REVALIDATION_HEADLINES: { key: string; label: string; hint: string }[] = [
  { key: 'revalidatedOverFullServerCpu', label: 'REST GetGroup · 304 ÷ 200 server CPU per request',
    hint: 'below 1: what revalidating saves the server' },
  { key: 'revalidatedOverFullThroughput', label: 'REST GetGroup · 304 ÷ 200 throughput',
    hint: 'above 1: more answers per second without the body' },
];

export interface Goal {
  key: string;
  label: string;
  /** The ratio the goal allows: at most (≤) or at least (≥). */
  bound: number;
  atMost: boolean;
  /** The goal also asks that no request of its pairs' cells failed. */
  noErrors?: boolean;
}

/** The hot path's goals (issue 14), each a headline ratio per wire. */
export const HOT_PATH_GOALS: Goal[] = (['Rest', 'Grpc'] as const).flatMap((suffix) => {
  const wire = suffix === 'Rest' ? 'REST' : 'gRPC';
  return [
    { key: `getGroupOverHelloServerCpu${suffix}`, label: `${wire} · GetGroup ÷ hello-world server CPU per request`, bound: 1.1, atMost: true },
    { key: `getGroupOverHelloP50${suffix}`, label: `${wire} · GetGroup ÷ hello-world p50 at one user`, bound: 1.15, atMost: true },
    { key: `users500Over50Throughput${suffix}`, label: `${wire} · ListGroups(20) throughput, 500 ÷ 50 users, a connection each`, bound: 0.9, atMost: false, noErrors: true },
  ];
}).concat([
  // gRPC clients multiplex: 500 users ten to a connection over the 50 connections of the 50-user cell
  { key: 'users500Over50ThroughputMultiplexedGrpc', label: 'gRPC · ListGroups(20) throughput, 500 ÷ 50 users on the same 50 connections', bound: 0.9, atMost: false, noErrors: true },
]);

export type GoalStatus = 'met' | 'not met' | 'undecided' | 'missing';

/**
 * Whether a headline meets its goal: "met" when its whole interval is on the goal's side, "not met"
 * when the whole interval is on the other, "undecided" when the interval holds the bound (or there
 * is no interval, and the value alone is not enough to say, or the bench flagged every pair's
 * windows, whose figures cannot decide it). A goal that asks for no errors is "not met" as soon as a
 * cell of a pair the headline used failed a request (the run's cells: `cells`).
 */
export function goalStatus(h: Headline | undefined, goal: Goal, cells: readonly Cell[]): GoalStatus {
  return goalVerdict(h, goal, cells).status;
}

/** goalStatus with why, in plain words (a goal card says it where a headline says its verdict). */
export function goalVerdict(h: Headline | undefined, goal: Goal, cells: readonly Cell[]): { status: GoalStatus; reason: string } {
  if (!h || h.value === null) return { status: 'missing', reason: h?.reason ?? 'no pair of cells for it in this run' };
  if (goal.noErrors) {
    const used = h.pairs.filter((p) => !p.excluded);
    const ids = new Set((used.length > 0 ? used : h.pairs).flatMap((p) => [p.numeratorCellId, p.denominatorCellId]));
    const failed = cells.filter((c) => ids.has(c.id) && c.summary.errors > 0);
    if (failed.length > 0) return { status: 'not met', reason: `${failed.map((c) => c.id).join(', ')} failed requests` };
  }
  if (h.verdict === 'flagged') return { status: 'undecided', reason: 'the bench flagged every window it could come from' };
  if (h.low === null || h.high === null) return { status: 'undecided', reason: 'no interval to decide it' };
  const within = (x: number) => (goal.atMost ? x <= goal.bound : x >= goal.bound);
  const side = goal.atMost ? ['at or below', 'above'] : ['at or above', 'below'];
  if (within(h.low) && within(h.high)) return { status: 'met', reason: `the whole 95 % interval is ${side[0]} ${goal.bound}` };
  if (!within(h.low) && !within(h.high)) return { status: 'not met', reason: `the whole 95 % interval is ${side[1]} ${goal.bound}` };
  return { status: 'undecided', reason: `the 95 % interval ${formatBounds(h, [goal.bound])} holds ${goal.bound}` };
}

export const goalText = (goal: Goal) => `goal ${goal.atMost ? '≤' : '≥'} ${goal.bound}${goal.noErrors ? ' with no errors' : ''}`;

export const stepHeadlineKey = (step: Step, figure: StepFigure) => `step${step.key}${figure.key}`;

/** Every headline this view shows (the Overview leaves them to it). */
export const DECOMPOSITION_HEADLINES: string[] = [
  ...STEP_FIGURES.flatMap((f) => STEPS.map((s) => stepHeadlineKey(s, f))),
  ...STEP_FIGURES.map((f) => f.direct),
  ...GZIP_HEADLINES.map((g) => g.key),
  ...REVALIDATION_HEADLINES.map((r) => r.key),
  ...HOT_PATH_GOALS.map((g) => g.key),
];

export function hasDecomposition(headline: Record<string, Headline>): boolean {
  return DECOMPOSITION_HEADLINES.some((k) => headline[k] && headline[k].value !== null);
}

/** Why a step's bar is greyed: anything but a finding (its interval includes 1, flagged cells). */
function notAFinding(h: Headline): string | null {
  if (h.verdict === 'finding') return null;
  return `${h.verdict}: ${h.reason ?? 'no reason given'}`;
}

function datum(h: Headline | undefined): Datum | null {
  if (!h || h.value === null) return null;
  return { y: h.value, low: h.low, high: h.high, flag: notAFinding(h) };
}

/**
 * How much of the whole gap each step explains: ln(step) ÷ Σ ln(steps), as a fraction. The steps
 * multiply (REST JSON/1.1 → gRPC is their product), so shares add up in logarithms. Null unless
 * every step has a value and the product is not 1 (no gap to share).
 */
export function gapShares(values: (number | null)[]): (number | null)[] {
  if (values.some((v) => v === null || v <= 0)) return values.map(() => null);
  const logs = (values as number[]).map(Math.log);
  const total = logs.reduce((a, b) => a + b, 0);
  if (Math.abs(total) < 1e-12) return values.map(() => null);
  return logs.map((l) => l / total);
}

/** Ratios as bars from 1 on a log scale (1.25× and 0.8× the same length), one bar per category. */
const RATIO_BARS = { unit: '×', yLog: true, referenceY: 1, barBase: 1, errorBars: true, skipNull: true } as const;

/** Under a chart: why a ratio is greyed, or that the run has no pair for it. */
function ratioNotes(labels: string[], hs: (Headline | undefined)[], missing: string): string[] {
  return labels.flatMap((label, i) => {
    const h = hs[i];
    if (!h) return [`${label}: ${missing}`];
    const why = notAFinding(h);
    return why ? [`Greyed: ${label} — ${why}`] : [];
  });
}

const T: ColumnFormat = 'text';
const N: ColumnFormat = 'num';
const F: ColumnFormat = 'fraction';

export const DIRECT_ROW = 'gRPC ÷ REST JSON, measured directly (the steps’ pairs)';
export const ALL_PAIRS_ROW = 'gRPC ÷ REST over every warm pair (not only the steps’)';

export function stepChart(headline: Record<string, Headline>, figure: StepFigure): ChartSpec {
  const hs = STEPS.map((s) => headline[stepHeadlineKey(s, figure)]);
  const values = hs.map((h) => (h ? h.value : null));
  const shares = gapShares(values);
  const product = values.every((v) => v !== null) ? (values as number[]).reduce((a, b) => a * b, 1) : null;
  const direct = headline[figure.direct];
  // a run from before the steps' own direct figure: its gRPC ÷ REST over every warm pair, said to be so
  const allPairs = direct ? undefined : headline[figure.allPairs];
  // one series per side, so a step is drawn in the colour of the wire it moves to; a category
  // holds one bar (the other series has none there)
  const series: SeriesSpec[] = (['rest', 'grpc'] as Protocol[]).map((protocol) => ({
    label: protocol === 'rest' ? 'REST steps' : 'to gRPC',
    protocol,
    shade: 0,
    data: STEPS.map((s, i) => (s.protocol === protocol ? datum(hs[i]) : null)),
  }));
  const kept = series.filter((s) => s.data.some((d) => d !== null));
  const rows: CsvValue[][] = STEPS.map((s, i) => {
    const h = hs[i];
    return [s.label, h?.value ?? null, h?.low ?? null, h?.high ?? null, shares[i], h?.verdict ?? 'missing', h?.pairs.length ?? 0];
  });
  // the steps multiplied: REST JSON over HTTP/1.1 → gRPC (no interval: the steps' cells differ)
  rows.push(['all three (product)', product, null, null, shares[0] === null ? null : 1, product === null ? 'missing' : '-', 0]);
  if (direct) {
    rows.push([DIRECT_ROW, direct.value, direct.low, direct.high, null, direct.verdict, direct.pairs.length]);
  } else if (allPairs) {
    rows.push([ALL_PAIRS_ROW, allPairs.value, allPairs.low, allPairs.high, null, allPairs.verdict, allPairs.pairs.length]);
  }
  const notes = ratioNotes(STEPS.map((s) => s.label), hs, 'this run has no pair of cells for it');
  // the product is no firmer than the steps it multiplies
  const weak = STEPS.flatMap((s, i) => {
    const why = hs[i] && notAFinding(hs[i]);
    return why ? [`${s.label} (${why})`] : [];
  });
  const productFlag = product === null ? 'missing' : weak.length > 0 ? `multiplies a step that is not a finding: ${weak.join('; ')}` : null;
  return {
    key: `steps-${figure.key === 'ServerCpu' ? 'server-cpu' : 'throughput'}`,
    title: `${figure.title} (95 % intervals)`,
    subtitle: `warm cache, closed model, native generators; ${figure.reading}`,
    kind: 'bar',
    categories: STEPS.map((s) => s.label),
    xTitle: 'Step',
    yTitle: figure.yTitle,
    ...RATIO_BARS,
    // the view has no filters: an empty chart means the run has no step pairs
    emptyText: 'This run has no pair of cells for these steps: the protocols profile measures them all, the quick profile one cell of each.',
    notes,
    series: kept,
    table: {
      columns: ['Step', 'Ratio (×)', 'low', 'high', 'Share of the gap', 'Verdict', 'Pairs'],
      formats: [T, N, N, N, F, T, 'int'],
      rows,
      rowFlags: [...hs.map((h) => (h ? notAFinding(h) : 'missing')), productFlag, ...(direct ? [notAFinding(direct)] : []),
        ...(allPairs ? ['not the steps’ pairs: this run pools every warm closed pair of the run, which the steps may not hold'] : [])],
    },
  };
}

export function gzipChart(headline: Record<string, Headline>): ChartSpec {
  const hs = GZIP_HEADLINES.map((g) => headline[g.key]);
  const series: SeriesSpec[] = GZIP_HEADLINES.map((g, i) => ({
    label: g.label,
    protocol: g.protocol,
    shade: 0,
    data: GZIP_HEADLINES.map((_, j) => (i === j ? datum(hs[i]) : null)),
  })).filter((s) => s.data.some((d) => d !== null));
  return {
    key: 'gzip-server-cpu',
    title: 'What gzip costs the server (95 % intervals)',
    subtitle: 'server CPU per request when the client asks for gzip ÷ when it asks for nothing, same cells otherwise',
    kind: 'bar',
    categories: GZIP_HEADLINES.map((g) => g.label),
    xTitle: 'Wire',
    yTitle: 'gzip ÷ identity (server CPU per request, log scale)',
    ...RATIO_BARS,
    emptyText: 'This run has no gzip cell paired with an uncompressed one.',
    notes: ratioNotes(GZIP_HEADLINES.map((g) => g.label), hs, 'this run has no gzip cell paired with an uncompressed one'),
    series,
    table: {
      columns: ['Wire', 'Ratio (×)', 'low', 'high', 'Verdict', 'Cell pairs'],
      formats: [T, N, N, N, T, T],
      rows: GZIP_HEADLINES.map((g, i) => {
        const h = hs[i];
        return [g.label, h?.value ?? null, h?.low ?? null, h?.high ?? null, h?.verdict ?? 'missing',
          h ? h.pairs.map((p) => `${p.numeratorCellId} ÷ ${p.denominatorCellId}`).join('; ') : ''];
      }),
      rowFlags: hs.map((h) => (h ? notAFinding(h) : 'missing')),
    },
  };
}
