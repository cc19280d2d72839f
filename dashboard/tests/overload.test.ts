import { describe, expect, it } from 'vitest';
import {
  doubleStepNotes, flushCount, goalRows, goodputChart, overloadPairs, pairName, refusalCostNotes, refusalsAndP99Charts, saturationNotes,
  stepFlag,
} from '../src/data/charts/overload';
import { PROTOCOL_COLOURS } from '../src/data/style';
import { readRun, RUN_A, RUN_B } from './helpers';

const run = readRun(RUN_A);
const [pair] = overloadPairs(run);

describe('overload pairs', () => {
  it('a run without overload cells (older runs, other profiles) has none', () => {
    expect(overloadPairs(readRun(RUN_B))).toEqual([]);
    expect(pairName(pair)).toBe('GetGroup · hybrid warm');
  });

  it('a pair with REST behind the compose balancer says so, in its name and its series', () => {
    const balanced = { ...pair, wires: [{ ...pair.wires[0], front: 'balancer' as const }, pair.wires[1]] };
    expect(pairName(balanced)).toBe('GetGroup · hybrid warm · REST behind the compose balancer');
    expect(goodputChart(balanced).series.map((s) => s.label)).toContain('REST · oha · balancer goodput');
    expect(goodputChart(balanced).series.map((s) => s.label)).toContain('gRPC · ghz goodput');
  });

  it('goodput against the offered load: one series per wire in its colour, intervals as error bars, the offered load dashed', () => {
    const spec = goodputChart(pair);
    expect(spec.kind).toBe('line');
    expect(spec.errorBars).toBe(true);
    const goodput = spec.series.filter((s) => s.label.endsWith('goodput'));
    expect(goodput.map((s) => [s.label, s.protocol])).toEqual([['REST · oha goodput', 'rest'], ['gRPC · ghz goodput', 'grpc']]);
    const rest = pair.wires[0];
    expect(goodput[0].data.map((d) => d && [d.x, d.y, d.low, d.high])).toEqual(
      rest.steps.map((s) => [s.offeredRate, s.goodputRps.value, s.goodputRps.low, s.goodputRps.high]),
    );
    const offered = spec.series.find((s) => s.label === 'REST · oha offered')!;
    expect(offered.dash).toBeTruthy();
    expect(offered.partnerOf).toBe('REST · oha goodput');
    expect(offered.data.every((d) => d !== null && d.x === d.y)).toBe(true);
    // each wire's capacity, marked on the x axis
    expect(spec.markers!.map((m) => [m.protocol, m.x])).toEqual([['rest', 9000], ['grpc', 13000]]);
    expect(spec.table.rows).toHaveLength(pair.wires.reduce((n, w) => n + w.steps.length, 0));
  });

  it('a step whose generator could not offer its load is greyed, with the reason in the notes and the table', () => {
    const flagged = pair.wires[0].steps.find((s) => s.step === 200)!;
    expect(stepFlag(flagged)).toBe('the generator could not offer the load (rate-short)');
    const spec = goodputChart(pair);
    const point = spec.series[0].data.find((d) => d?.cellId === flagged.cellId)!;
    expect(point.flag).toContain('rate-short');
    expect(spec.notes).toEqual([
      'REST · oha: saturated from 150 % of capacity (served less than 95 % of the load offered)',
      'gRPC · ghz: saturated from 150 % of capacity (served less than 95 % of the load offered)',
      `Greyed: ${flagged.cellId} — the generator could not offer the load (rate-short)`,
    ]);
    expect(spec.table.rowFlags!.filter(Boolean)).toHaveLength(1);
  });

  it('greys a step for a flag of its windows as a cell is greyed: not for the informational ones alone', () => {
    const step = pair.wires[1].steps[2];
    // other-cpu, few-samples and jit leave a cell ungreyed (transforms.isFlagged) and the goals' verdicts as they are
    expect(stepFlag({ ...step, flags: ['other-cpu'] })).toBeNull();
    expect(stepFlag({ ...step, flags: ['jit', 'few-samples', 'other-cpu'] })).toBeNull();
    expect(stepFlag({ ...step, flags: ['hit-ratio', 'rate-short', 'other-cpu'] }))
      .toBe('the generator could not offer the load (rate-short); its windows were flagged hit-ratio');
    expect(stepFlag(step)).toBeNull();
    const flagged = { ...pair, wires: [pair.wires[0], { ...pair.wires[1], steps: pair.wires[1].steps.map((s) => (s === step ? { ...s, flags: ['errors'] } : s)) }] };
    const spec = goodputChart(flagged);
    expect(spec.series.flatMap((x) => x.data).find((d) => d?.cellId === step.cellId)!.flag).toBe('its windows were flagged errors');
    expect(spec.notes).toContain(`Greyed: ${step.cellId} — its windows were flagged errors`);
    expect(spec.table.rowFlags!.filter(Boolean)).toHaveLength(2);
  });

  it('refusals per second and the accepted p99 (log scale, with intervals) per wire', () => {
    const [refusals, p99] = refusalsAndP99Charts(pair);
    expect(refusals.series.map((s) => s.label)).toEqual(['REST · oha refused', 'gRPC · ghz refused']);
    expect(refusals.series[1].data.map((d) => d!.y)).toEqual(pair.wires[1].steps.map((s) => s.refusalsPerSecond));
    expect(p99.yLog).toBe(true);
    expect(p99.errorBars).toBe(true);
    const grpc300 = pair.wires[1].steps.at(-1)!;
    const grpcP99 = p99.series.find((s) => s.label === 'gRPC · ghz p99')!;
    expect(grpcP99.data.at(-1)).toMatchObject({ x: grpc300.offeredRate, y: grpc300.p99.value, low: grpc300.p99.low });
  });

  // the pair as a run before the service's clock and the cap's throttling were recorded
  const before = {
    ...pair,
    wires: pair.wires.map((w) => ({
      ...w, steps: w.steps.map(({ serviceP99Ms: _t, capThrottledShare: _c, ioOverCarrier: _i, ...s }) => s),
    })),
  };

  it("the p99 chart shows the service's own p99 dashed beside the generator's, and runs without it show none", () => {
    const timed = { ...pair, wires: pair.wires.map((w) => ({ ...w, steps: w.steps.map((s) => ({ ...s, serviceP99Ms: 2.5 })) })) };
    const p99 = refusalsAndP99Charts(timed)[1];
    expect(p99.series.map((s) => s.label)).toEqual(['REST · oha p99', 'REST · oha p99 in the service', 'gRPC · ghz p99',
      'gRPC · ghz p99 in the service']);
    expect(p99.series[3].dash).toEqual([4, 4]);
    expect(p99.series[3].data.every((d) => d === null || d.y === 2.5)).toBe(true);
    const column = p99.table.columns.indexOf('p99 in the service (ms)');
    expect(p99.table.rows.every((r) => r[column] === 2.5)).toBe(true);
    expect(p99.table.formats).toHaveLength(p99.table.columns.length);
    expect(refusalsAndP99Charts(before)[1].series.map((s) => s.label)).toEqual(['REST · oha p99', 'gRPC · ghz p99']);
  });

  it("the goodput table carries the share of the cap's periods throttled, empty in runs before it", () => {
    const throttled = { ...pair, wires: pair.wires.map((w) => ({ ...w, steps: w.steps.map((s) => ({ ...s, capThrottledShare: 0.99 })) })) };
    const table = goodputChart(throttled).table;
    const column = table.columns.indexOf('Cap periods throttled');
    expect(table.rows.every((r) => r[column] === 0.99)).toBe(true);
    expect(goodputChart(before).table.rows.every((r) => r[column] === null)).toBe(true);
  });

  it("the goodput table carries the service's I/O threads' CPU over its carriers', empty in runs before it", () => {
    const split = { ...pair, wires: pair.wires.map((w) => ({ ...w, steps: w.steps.map((s) => ({ ...s, ioOverCarrier: 3.2 })) })) };
    const table = goodputChart(split).table;
    const column = table.columns.indexOf('I/O threads ÷ carriers (CPU)');
    expect(table.rows.every((r) => r[column] === 3.2)).toBe(true);
    expect(table.formats).toHaveLength(table.columns.length);
    expect(goodputChart(before).table.rows.every((r) => r[column] === null)).toBe(true);
  });

  it('a run from before the saturation check says nothing of it; a wire no step saturated is named', () => {
    const { firstSaturatedStep: _, ...older } = pair.wires[0];
    expect(saturationNotes({ ...pair, wires: [older] })).toEqual([]);
    expect(saturationNotes({ ...pair, wires: [{ ...pair.wires[0], firstSaturatedStep: null }] })[0]).toMatch(/^REST · oha: no step saturated it/);
  });

  it("a wire's refusal cost in place is a note under the goodput chart; runs before it and wires without refusals say nothing", () => {
    const cost = { servedUs: 89.9, refusedUs: 18.8, ratio: { value: 0.209, low: 0.185, high: 0.235 }, ratioForGoal: 0.14,
      windows: 24, cpuOf: ['grpc-service' as const] };
    const withCost = { ...pair, wires: [{ ...pair.wires[0], refusalCost: null }, { ...pair.wires[1], refusalCost: cost }] };
    expect(refusalCostNotes(withCost)).toEqual([
      'gRPC · ghz: a refusal cost 18.8 µs of CPU against 89.9 µs a served request, r = 0.209 [0.185–0.235]; 0.8 of the peak at 2× needed r ≤ 0.14']);
    expect(goodputChart(withCost).notes).toContain(refusalCostNotes(withCost)[0]);
    expect(refusalCostNotes(pair)).toEqual([]);
  });

  it('where the goals at 2× were read: a note and a marker at that step; runs before it say nothing', () => {
    const rest = pair.wires[0];
    const at = rest.steps.at(-2)!;
    const read = { ...pair, wires: [{ ...rest, doubleStep: { step: at.step!, offeredOverPeak: 2.08 } }, { ...pair.wires[1], doubleStep: null }] };
    expect(doubleStepNotes(read)).toEqual([
      `REST · oha: the goals at 2× are read at the ${at.step} % step, which offered 2.08× the peak goodput`,
      'gRPC · ghz: no step offered twice its peak goodput, so its goals at 2× are missing']);
    const spec = goodputChart(read);
    expect(spec.notes).toContain(doubleStepNotes(read)[0]);
    expect(spec.markers!.map((m) => [m.label, m.x])).toEqual([['REST capacity', 9000], ['REST 2× peak', at.offeredRate],
      ['gRPC capacity', 13000]]);
    expect(refusalsAndP99Charts(read)[1].markers).toEqual(spec.markers);
    expect(doubleStepNotes(pair)).toEqual([]);
  });

  it("the goodput table carries the services' CPU per step, empty in runs that did not record it", () => {
    const cores = { ...pair, wires: pair.wires.map((w) => ({ ...w, steps: w.steps.map((s) => ({ ...s, serviceCores: 0.39 })) })) };
    const table = goodputChart(cores).table;
    const column = table.columns.indexOf("Services' CPU (cores)");
    expect(column).toBeGreaterThan(0);
    expect(table.rows.every((r) => r[column] === 0.39)).toBe(true);
    expect(goodputChart(pair).table.rows.every((r) => r[column] === null)).toBe(true);
    expect(table.formats).toHaveLength(table.columns.length);
  });

  it('L1 flushes are summed over their reasons', () => {
    const grpc300 = pair.wires[1].steps.at(-1)!;
    expect(flushCount(grpc300)).toBe(2);
    expect(flushCount({ ...grpc300, l1Flushes: null })).toBeNull();
    expect(goodputChart(pair).table.rows.at(-1)).toContain(2);
  });

  it('the goals of both wires, each with its bound, its figure and the status the bench gave it', () => {
    const rows = goalRows(pair);
    expect(rows).toHaveLength(10);
    expect(rows[0]).toMatchObject({ wire: 'rest', colour: PROTOCOL_COLOURS.rest, bound: '≥ 0.8' });
    expect(rows[0].goal.status).toBe('undecided');
    expect(rows[0].figure).toMatch(/^\d(\.\d+)? \[\d(\.\d+)?–\d(\.\d+)?\]$/);
    const flushes = rows.find((r) => r.wire === 'grpc' && r.goal.key === 'l1Flushes')!;
    expect([flushes.bound, flushes.figure, flushes.goal.status]).toEqual(['≤ 0', '2', 'not met']);
    expect(new Set(rows.map((r) => r.goal.status))).toEqual(new Set(['met', 'not met', 'undecided']));
    // the fixture's goodput interval reaches past 1, as the older rule allowed
    expect(rows.filter((r) => r.olderRule).every((r) => r.goal.key === 'goodputAt2xOverPeak' && r.goal.high! > 1)).toBe(true);
  });

  it('a goal\'s figure never prints as its bound when it is not: 0.96996 is not "0.970" beside "≥ 0.97 not met"', () => {
    const near = {
      ...pair,
      wires: pair.wires.map((w) => ({
        ...w,
        goals: w.goals.map((g) => (g.key === 'minWarmHitRatio' ? { ...g, value: 0.96996, low: 0.96996, high: 0.96996, status: 'not met' as const }
          : g.key === 'p99At2xOverUnloaded' ? { ...g, value: 7.5, low: 5.21, high: 10.02, status: 'undecided' as const } : g)),
      })),
    };
    const rows = goalRows(near);
    expect(rows.find((r) => r.goal.key === 'minWarmHitRatio')!.figure).toBe('0.96996');
    expect(rows.find((r) => r.goal.key === 'p99At2xOverUnloaded')!.figure).toBe('7.5 [5.21–10.02]');
  });

  it('a goodput goal whose interval reaches above 1 was decided by the older rule, and says so', () => {
    // the current rule chooses the peak in each replicate: at most 1; a run from before it could
    // record "met" on 1 [1–1] or on an interval past 1 (README, "Under overload")
    const goodput = (high: number) => ({
      ...pair,
      wires: pair.wires.map((w) => ({
        ...w,
        goals: w.goals.map((g) => (g.key === 'goodputAt2xOverPeak' ? { ...g, value: 0.97, low: 0.84, high, status: 'met' as const } : g)),
      })),
    });
    expect(goalRows(goodput(1.15)).filter((r) => r.olderRule).map((r) => r.goal.key))
      .toEqual(['goodputAt2xOverPeak', 'goodputAt2xOverPeak']);
    expect(goalRows(goodput(1)).filter((r) => r.olderRule)).toEqual([]);
  });
});
