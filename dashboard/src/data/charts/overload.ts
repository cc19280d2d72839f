// Under overload (issue #17): the overload pairs of run.json (profile [[overload]] blocks), both wires
// loaded at once at a percent of their measured capacity. Goodput against the load offered, the
// refusals and the accepted requests' p99 per step, and the issue's goals with the status the bench
// gave them (overload.py: met / not met / undecided, by the hot path goals' rule). Every number is
// run.json's; nothing is computed here but the points' places.
import type { CsvValue } from '../csv';
import { INFORMATIONAL_FLAGS } from '../transforms';
import { formatInterval, formatValue } from '../format';
import { protocolColour, PROTOCOL_LABELS } from '../style';
import type { OverloadGoal, OverloadPair, OverloadStep, OverloadWire, Run } from '../types';
import { I, keep, N, T, type ChartSpec, type Datum, type Marker, type SeriesSpec } from './spec';

export function overloadPairs(run: Run): OverloadPair[] {
  return run.overload ?? [];
}

export function pairName(pair: OverloadPair): string {
  const page = pair.pageSize === null ? '' : ` N=${pair.pageSize}`;
  // a run may hold the same pair twice: the services alone, and a wire behind the compose balancer
  const balanced = pair.wires.filter((w) => w.front === 'balancer').map((w) => PROTOCOL_LABELS[w.protocol]);
  const front = balanced.length ? ` · ${balanced.join(' and ')} behind the compose balancer` : '';
  return `${pair.operation}${page} · ${pair.cacheMode} ${pair.temperature}${pair.tls ? ' · TLS' : ''}${front}`;
}

const wireName = (w: OverloadWire) => `${PROTOCOL_LABELS[w.protocol]} · ${w.tool}${w.front === 'balancer' ? ' · balancer' : ''}`;

/**
 * Why a step's point is greyed: a flag of its windows, the generator's shortfall said in words first.
 * A step pools its windows as a cell does, so it is greyed as a cell is (isFlagged): not for the
 * informational flags alone (other-cpu, few-samples, jit), which leave the goals' verdicts as they are.
 */
const GENERATOR_FLAGS = ['generator-saturated', 'rate-short', 'dropped-arrivals'];
export function stepFlag(s: OverloadStep): string | null {
  const generator = s.flags.filter((f) => GENERATOR_FLAGS.includes(f));
  const other = s.flags.filter((f) => !GENERATOR_FLAGS.includes(f) && !INFORMATIONAL_FLAGS.has(f));
  const why = [
    ...(generator.length ? [`the generator could not offer the load (${generator.join(', ')})`] : []),
    ...(other.length ? [`its windows were flagged ${other.join(', ')}`] : []),
  ];
  return why.length ? why.join('; ') : null;
}

function point(s: OverloadStep, y: number | null, low: number | null = null, high: number | null = null): Datum | null {
  if (y === null || s.offeredRate === null) return null;
  return {
    x: s.offeredRate,
    y,
    low,
    high,
    flag: stepFlag(s),
    cellId: s.cellId,
    xLabel: `${formatValue(s.offeredRate, '/s')} offered (${s.step} % of capacity)`,
  };
}

function flagNotes(pair: OverloadPair): string[] {
  return pair.wires.flatMap((w) =>
    w.steps.flatMap((s) => {
      const f = stepFlag(s);
      return f ? [`Greyed: ${s.cellId} — ${f}`] : [];
    }),
  );
}

/** A step's L1 flushes, every reason summed (null when the service did not report them). */
export function flushCount(s: OverloadStep): number | null {
  return s.l1Flushes ? Object.values(s.l1Flushes).reduce((a, b) => a + b, 0) : null;
}

/** Where each wire's goodput fell short of the load offered (below 95 % of it); older runs do not say. */
export function saturationNotes(pair: OverloadPair): string[] {
  return pair.wires.flatMap((w) =>
    w.firstSaturatedStep === undefined
      ? []
      : [w.firstSaturatedStep === null
          ? `${wireName(w)}: no step saturated it (every step served at least 95 % of its offered load)`
          : `${wireName(w)}: saturated from ${w.firstSaturatedStep} % of capacity (served less than 95 % of the load offered)`],
  );
}

/**
 * Where each wire's goals at 2× were read: the lowest step offered at least twice its peak goodput
 * (run.json's doubleStep); older runs, read at the 200 % step, do not say.
 */
export function doubleStepNotes(pair: OverloadPair): string[] {
  return pair.wires.flatMap((w) => {
    if (w.doubleStep === undefined) return [];
    if (w.doubleStep === null) return [`${wireName(w)}: no step offered twice its peak goodput, so its goals at 2× are missing`];
    return [`${wireName(w)}: the goals at 2× are read at the ${w.doubleStep.step} % step, which offered `
      + `${formatValue(w.doubleStep.offeredOverPeak, '×')} the peak goodput`];
  });
}

/**
 * What a refusal cost each wire in place, next to what the goodput goal at 2× needed (run.json's
 * refusalCost: fitted by the bench over the saturated steps' CPU); older runs, and wires that refused
 * next to nothing, do not say.
 */
export function refusalCostNotes(pair: OverloadPair): string[] {
  return pair.wires.flatMap((w) => {
    const c = w.refusalCost;
    if (!c) return [];
    const need = c.ratioForGoal === null ? '' : `; 0.8 of the peak at 2× needed r ≤ ${formatValue(c.ratioForGoal, '')}`;
    return [`${wireName(w)}: a refusal cost ${formatValue(c.refusedUs, 'µs')} of CPU against ${formatValue(c.servedUs, 'µs')} `
      + `a served request, r = ${formatInterval(c.ratio, '')}${need}`];
  });
}

/** Each wire's capacity (closed) and, dashed lighter, the load its goals at 2× were read at. */
function capacityMarkers(pair: OverloadPair): Marker[] {
  return pair.wires.flatMap((w) => {
    const double = w.doubleStep ? w.steps.find((s) => s.step === w.doubleStep!.step)?.offeredRate ?? null : null;
    return [
      ...(w.capacity?.goodputRps.value != null
        ? [{ x: w.capacity.goodputRps.value, label: `${PROTOCOL_LABELS[w.protocol]} capacity`, protocol: w.protocol, shade: 0 }]
        : []),
      ...(double !== null ? [{ x: double, label: `${PROTOCOL_LABELS[w.protocol]} 2× peak`, protocol: w.protocol, shade: 0.5 }] : []),
    ];
  });
}

/** Goodput (successful answers per second) against the load offered, per wire, with the offered load as a dashed line. */
export function goodputChart(pair: OverloadPair): ChartSpec {
  const series: SeriesSpec[] = pair.wires.flatMap((w) => [
    {
      label: `${wireName(w)} goodput`,
      protocol: w.protocol,
      shade: 0,
      data: w.steps.map((s) => point(s, s.goodputRps.value, s.goodputRps.low, s.goodputRps.high)),
    },
    {
      label: `${wireName(w)} offered`,
      protocol: w.protocol,
      shade: 0.5,
      dash: [4, 4],
      hideInLegend: true,
      partnerOf: `${wireName(w)} goodput`,
      data: w.steps.map((s) => point(s, s.offeredRate)),
    },
  ]);
  const rows: CsvValue[][] = pair.wires.flatMap((w) =>
    w.steps.map((s) => [PROTOCOL_LABELS[w.protocol], s.step, s.offeredRate, s.goodputRps.value, s.goodputRps.low, s.goodputRps.high,
      w.capacity?.goodputRps.value ?? null, s.minHitRatio, flushCount(s), s.admissionLimit, s.serviceCores ?? null,
      s.capThrottledShare ?? null, s.ioOverCarrier ?? null, s.cellId]),
  );
  return {
    key: `overload-goodput-${pair.id}`,
    title: 'Goodput vs offered load (95 % intervals)',
    subtitle: `${pairName(pair)}; both wires loaded at once; dashed: the load offered (all of it answered); vertical lines mark each wire's `
      + 'capacity and the step its goals at 2× were read at',
    kind: 'line',
    xTitle: 'Offered load (requests/s)',
    yTitle: 'Goodput (successful answers/s)',
    unit: 'req/s',
    xAxis: 'linear',
    errorBars: true,
    markers: capacityMarkers(pair),
    notes: [...saturationNotes(pair), ...doubleStepNotes(pair), ...refusalCostNotes(pair), ...flagNotes(pair)],
    series: keep(series),
    table: {
      columns: ['Wire', 'Step (% of capacity)', 'Offered (/s)', 'Goodput (req/s)', 'low', 'high', 'Capacity (req/s)',
        'Lowest warm hit ratio', 'L1 flushes', 'Admission limit', 'Services\' CPU (cores)', 'Cap periods throttled',
        'I/O threads ÷ carriers (CPU)', 'Cell'],
      formats: [T, N, N, N, N, N, N, 'fraction', I, N, N, 'fraction', N, T],
      rows,
      rowFlags: pair.wires.flatMap((w) => w.steps.map(stepFlag)),
    },
  };
}

/** What the load beyond capacity became: refusals per second, and the accepted requests' p99 (log scale). */
export function refusalsAndP99Charts(pair: OverloadPair): ChartSpec[] {
  const rows: CsvValue[][] = pair.wires.flatMap((w) =>
    w.steps.map((s) => [PROTOCOL_LABELS[w.protocol], s.step, s.offeredRate, s.refusals, s.admissionRefused ?? null, s.refusalsPerSecond,
      s.timeouts, s.lateAnswers, s.otherErrors, s.p50.value, s.p99.value, s.p99.low, s.p99.high, s.serviceP99Ms ?? null, s.cellId]),
  );
  const table = {
    columns: ['Wire', 'Step (%)', 'Offered (/s)', 'Refusals', 'Refused (service count)', 'Refusals (/s)', 'Timeouts', 'Late answers',
      'Other errors', 'p50 (ms)', 'p99 (ms)', 'p99 low', 'p99 high', 'p99 in the service (ms)', 'Cell'],
    formats: [T, N, N, I, I, N, I, I, I, N, N, N, N, N, T] as ChartSpec['table']['formats'],
    rows,
    rowFlags: pair.wires.flatMap((w) => w.steps.map(stepFlag)),
  };
  const refusals: ChartSpec = {
    key: `overload-refusals-${pair.id}`,
    title: 'Refused (503 / UNAVAILABLE) per second',
    subtitle: `${pairName(pair)}; admission control's answer to the load it cannot serve in time`,
    kind: 'line',
    xTitle: 'Offered load (requests/s)',
    yTitle: 'Refusals/s',
    unit: '/s',
    xAxis: 'linear',
    markers: capacityMarkers(pair),
    notes: flagNotes(pair),
    series: keep(pair.wires.map((w) => ({
      label: `${wireName(w)} refused`, protocol: w.protocol, shade: 0, data: w.steps.map((s) => point(s, s.refusalsPerSecond)),
    }))),
    table,
  };
  const p99: ChartSpec = {
    key: `overload-p99-${pair.id}`,
    title: 'Accepted requests: p99 from their due time (95 % intervals)',
    subtitle: `${pairName(pair)}; coordinated omission corrected: a request that waited to be sent counts its wait; `
      + 'dashed: the p99 the service itself timed, from where its framework first saw each request (the gap is the wait before it)',
    kind: 'line',
    xTitle: 'Offered load (requests/s)',
    yTitle: 'p99 (ms, log scale)',
    unit: 'ms',
    xAxis: 'linear',
    yLog: true,
    errorBars: true,
    markers: capacityMarkers(pair),
    notes: flagNotes(pair),
    series: keep(pair.wires.flatMap((w) => [
      {
        label: `${wireName(w)} p99`, protocol: w.protocol, shade: 0,
        data: w.steps.map((s) => point(s, s.p99.value !== null && s.p99.value > 0 ? s.p99.value : null, s.p99.low, s.p99.high)),
      },
      {
        // the service's own clock (runs before it have none, and keep() drops the empty series)
        label: `${wireName(w)} p99 in the service`, protocol: w.protocol, shade: 0.5, dash: [4, 4],
        data: w.steps.map((s) => point(s, s.serviceP99Ms != null && s.serviceP99Ms > 0 ? s.serviceP99Ms : null)),
      },
    ])),
    table,
  };
  return [refusals, p99];
}

export interface GoalRow {
  wire: OverloadWire['protocol'];
  colour: string;
  goal: OverloadGoal;
  /** "≥ 0.8", "≤ 10". */
  bound: string;
  /** The figure with its interval when it has one ("0.91 [0.88–0.93]"), else the value. */
  figure: string;
  /** Why the status the run recorded does not stand as the bench decides it now, or null. */
  olderRule: string | null;
}

/**
 * The bench decides the goodput goal at 2× with the peak chosen again in each bootstrap replicate,
 * so its interval never reaches above 1 (ad9262b); a run from before chose the peak once, and its
 * recorded status could be "met" on an interval up to 1 [1–1]. Such a status is shown as recorded,
 * with this note.
 */
function olderGoodputRule(g: OverloadGoal): string | null {
  return g.key === 'goodputAt2xOverPeak' && g.high !== null && g.high > 1
    ? 'recorded by an older rule (the peak chosen once, not in each replicate): scripts/overload-goodput.py results/<run>/run.json decides it as the bench does now'
    : null;
}

/** The goals of every wire of a pair, in the order the bench lists them, ready for the table. */
export function goalRows(pair: OverloadPair): GoalRow[] {
  return pair.wires.flatMap((w) =>
    w.goals.map((g) => ({
      wire: w.protocol,
      colour: protocolColour(w.protocol),
      goal: g,
      bound: `${g.atMost ? '≤' : '≥'} ${g.bound}`,
      // counts and the lowest hit ratio are exact (low = high = value): no interval to print; read
      // against the bound, the figure never prints as the bound when it is not (0.96996 beside ≥ 0.97)
      figure: g.value === null ? '—' : formatInterval(g.low !== g.high ? g : { value: g.value, low: null, high: null }, '', [g.bound]),
      olderRule: olderGoodputRule(g),
    })),
  );
}
