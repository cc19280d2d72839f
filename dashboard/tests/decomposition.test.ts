import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { gapShares, goalStatus, goalText, goalVerdict, gzipChart, hasDecomposition, HOT_PATH_GOALS, STEP_FIGURES, stepChart } from '../src/data/decomposition';
import type { Cell, Headline } from '../src/data/types';
import { readRun, RUN_A, RUN_B } from './helpers';

const h = (value: number | null, low: number | null, high: number | null, verdict: Headline['verdict'] = 'finding'): Headline => ({
  description: 'd', value, low, high, verdict, reason: verdict === 'finding' ? null : 'the 95 % interval includes 1', pairs: [],
});
const [cpu, throughput] = STEP_FIGURES;

describe('gap shares', () => {
  it('splits the product of the steps in logarithms and adds up to the whole', () => {
    const shares = gapShares([0.9, 0.5, 0.8]) as number[];
    const total = Math.log(0.9 * 0.5 * 0.8);
    expect(shares.map((s) => s * total)).toEqual([Math.log(0.9), Math.log(0.5), Math.log(0.8)].map((x) => expect.closeTo(x, 12)));
    expect(shares.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);
  });

  it('a step against the others gets a negative share; no gap or a missing step shares nothing', () => {
    const [a, b] = gapShares([1.25, 0.5]) as number[];
    expect(a).toBeLessThan(0);
    expect(b).toBeGreaterThan(1);
    expect(gapShares([2, 0.5])).toEqual([null, null]);
    expect(gapShares([0.9, null, 0.8])).toEqual([null, null, null]);
  });
});

describe('step charts', () => {
  const headline = {
    stepEncodingServerCpu: h(0.9, 0.85, 0.95),
    stepHttp2ServerCpu: h(0.97, 0.9, 1.05, 'inconclusive'),
    stepGrpcServerCpu: h(0.5, 0.45, 0.55),
    stepDirectServerCpu: h(0.42, 0.39, 0.45),
    // over every warm pair of the run, other pairs than the steps': never the direct row beside the steps
    grpcOverRestServerCpuPerRequest: h(0.6, 0.55, 0.65),
  };

  it('plots each step as run.json has it, on a log scale around 1, REST steps apart from the gRPC one', () => {
    const spec = stepChart(headline, cpu);
    expect(spec.yLog && spec.referenceY === 1 && spec.barBase === 1 && spec.errorBars && spec.skipNull).toBe(true);
    // the axis says so, as every other log axis does: 0.8× and 1.25× draw as bars of one length
    expect(spec.yTitle).toMatch(/log scale/);
    expect(gzipChart({}).yTitle).toMatch(/log scale/);
    expect(spec.categories).toEqual(['JSON → Protobuf', 'HTTP/1.1 → HTTP/2', 'REST → gRPC']);
    const [rest, grpc] = spec.series;
    expect(rest.protocol).toBe('rest');
    expect(rest.data.map((d) => d?.y ?? null)).toEqual([0.9, 0.97, null]);
    expect(grpc.data.map((d) => d?.y ?? null)).toEqual([null, null, 0.5]);
    expect(rest.data[0]).toMatchObject({ low: 0.85, high: 0.95, flag: null });
  });

  it('says a run has no steps, not that filters (the view has none) matched no cells', () => {
    // results/20261202T055350Z-hotpath-974a617: no step pairs; both step charts said "No cells in this run match the filters"
    expect(stepChart({}, cpu).emptyText).toMatch(/no pair of cells for these steps/);
    expect(gzipChart({}).emptyText).toMatch(/no gzip cell/);
  });

  it('greys a step that is not a finding and says why', () => {
    const spec = stepChart(headline, cpu);
    expect(spec.series[0].data[1]?.flag).toMatch(/^inconclusive: the 95 % interval includes 1/);
    expect(spec.notes).toEqual([expect.stringMatching(/^Greyed: HTTP\/1.1 → HTTP\/2 — inconclusive/)]);
    expect(spec.table.rowFlags?.[1]).toMatch(/inconclusive/);
  });

  it('flags the product row when a step it multiplies is not a finding, and the direct row when it is not one', () => {
    const flags = stepChart(headline, cpu).table.rowFlags!;
    expect(flags[3]).toMatch(/^multiplies a step that is not a finding: HTTP\/1\.1 → HTTP\/2 \(inconclusive/);
    expect(flags[4]).toBeNull();
    const allFindings = { ...headline, stepHttp2ServerCpu: h(0.85, 0.8, 0.9) };
    expect(stepChart(allFindings, cpu).table.rowFlags![3]).toBeNull();
    const vague = { ...allFindings, stepDirectServerCpu: h(0.95, 0.85, 1.05, 'inconclusive') };
    expect(stepChart(vague, cpu).table.rowFlags![4]).toMatch(/^inconclusive: /);
    // a product missing a step is missing, as a missing step is
    expect(stepChart({ stepGrpcThroughput: h(1.6, 1.5, 1.7) }, throughput).table.rowFlags![3]).toBe('missing');
  });

  it('tables each step with its share, the product and the directly measured ratio', () => {
    const rows = stepChart(headline, cpu).table.rows;
    expect(rows.map((r) => r[0])).toEqual(['JSON → Protobuf', 'HTTP/1.1 → HTTP/2', 'REST → gRPC', 'all three (product)',
      'gRPC ÷ REST JSON, measured directly (the steps’ pairs)']);
    expect(rows[3][1]).toBeCloseTo(0.9 * 0.97 * 0.5, 12);
    expect(rows[2][4]).toBeCloseTo(Math.log(0.5) / Math.log(0.9 * 0.97 * 0.5), 12);
    expect(rows[4].slice(1, 4)).toEqual([0.42, 0.39, 0.45]);
  });

  it('a run from before the steps’ direct figure shows its all-pairs ratio under that name, flagged', () => {
    const { stepDirectServerCpu: _, ...older } = headline;
    const table = stepChart(older, cpu).table;
    expect(table.rows[4].slice(0, 4)).toEqual(['gRPC ÷ REST over every warm pair (not only the steps’)', 0.6, 0.55, 0.65]);
    expect(table.rowFlags?.[4]).toMatch(/not the steps’ pairs/);
  });

  it('a run without a step says so instead of drawing it', () => {
    const spec = stepChart({ stepGrpcThroughput: h(1.6, 1.5, 1.7) }, throughput);
    expect(spec.series.map((s) => s.protocol)).toEqual(['grpc']);
    expect(spec.notes).toContain('JSON → Protobuf: this run has no pair of cells for it');
    expect(spec.table.rows[3][1]).toBeNull();
  });
});

describe('gzip and the fixture runs', () => {
  it('draws what gzip costs each wire', () => {
    const spec = gzipChart({ gzipOverIdentityServerCpuRest: h(1.8, 1.6, 2.0) });
    expect(spec.series.map((s) => [s.label, s.data.map((d) => d?.y ?? null)])).toEqual([['REST', [1.8, null]]]);
    expect(spec.notes).toEqual(['gRPC: this run has no gzip cell paired with an uncompressed one']);
  });

  it('run A carries the steps and run B does not', () => {
    expect(hasDecomposition(readRun(RUN_A).headline)).toBe(true);
    expect(hasDecomposition(readRun(RUN_B).headline)).toBe(false);
  });
});

describe('the hot path goals', () => {
  const cpu = HOT_PATH_GOALS.find((g) => g.key === 'getGroupOverHelloServerCpuRest')!;
  const users = HOT_PATH_GOALS.find((g) => g.key === 'users500Over50ThroughputGrpc')!;

  it('are met only when the whole interval is on the goal side of the bound', () => {
    expect(goalStatus(h(1.05, 1.01, 1.09), cpu, [])).toBe('met');
    expect(goalStatus(h(1.12, 1.05, 1.2), cpu, [])).toBe('undecided');
    expect(goalStatus(h(1.24, 1.18, 1.3), cpu, [])).toBe('not met');
    expect(goalStatus(h(0.95, 0.91, 0.99), users, [])).toBe('met');
    expect(goalStatus(h(0.8, 0.7, 0.85), users, [])).toBe('not met');
    // and say why in the goal's terms, not against 1
    expect(goalVerdict(h(0.983, 0.927, 1.02), HOT_PATH_GOALS.find((g) => g.key === 'getGroupOverHelloP50Grpc')!, []))
      .toEqual({ status: 'met', reason: 'the whole 95 % interval is at or below 1.15' });
    expect(goalVerdict(h(0.919, 0.841, 0.991), users, [])).toEqual({ status: 'undecided', reason: 'the 95 % interval [0.841–0.991] holds 0.9' });
    // a bound that is not the goal's prints with the digits that keep it off the bound
    expect(goalVerdict(h(1.0, 0.95, 1.1004), cpu, []))
      .toEqual({ status: 'undecided', reason: 'the 95 % interval [0.95–1.1004] holds 1.1' });
  });

  it('say undecided without an interval and missing without a value', () => {
    expect(goalStatus(h(1.0, null, null), cpu, [])).toBe('undecided');
    expect(goalStatus(undefined, cpu, [])).toBe('missing');
    expect(goalText(cpu)).toBe('goal ≤ 1.1');
    expect(goalText(users)).toBe('goal ≥ 0.9 with no errors');
  });

  it('say undecided when every pair had a cell whose windows were all flagged', () => {
    expect(goalStatus(h(1.05, 1.01, 1.09, 'flagged'), cpu, [])).toBe('undecided');
  });

  it('are not met, whatever the interval, when a goal asks for no errors and a cell of a used pair failed a request', () => {
    const A = readRun(RUN_A);
    const [num, den] = A.cells;
    const pairs = [{ numeratorCellId: num.id, denominatorCellId: den.id, ratio: 0.95, low: 0.91, high: 0.99, excluded: false, excludedWhy: null }];
    const withPairs = { ...h(0.95, 0.91, 0.99), pairs };
    const failing = (c: typeof num, errors: number) => ({ ...c, summary: { ...c.summary, errors } });
    expect(goalStatus(withPairs, users, [failing(num, 0), failing(den, 0)])).toBe('met');
    expect(goalStatus(withPairs, users, [failing(num, 0), failing(den, 3)])).toBe('not met');
    // a cell of no pair, or of a pair the headline left out, does not count
    expect(goalStatus(withPairs, users, [failing(num, 0), failing(den, 0), failing({ ...A.cells[2] }, 5)])).toBe('met');
    const leftOut = { ...withPairs, pairs: [...pairs, { ...pairs[0], numeratorCellId: A.cells[2].id, excluded: true, excludedWhy: 'x' }] };
    expect(goalStatus(leftOut, users, [failing(num, 0), failing(den, 0), failing(A.cells[2], 5)])).toBe('met');
    // a goal that does not ask for it ignores errors
    expect(goalStatus(withPairs, { ...users, noErrors: false }, [failing(num, 7), failing(den, 0)])).toBe('met');
  });
});

// The end-of-run text judges the same goals (report.py hot_path_goal_lines): both read these goals and
// cases, so a goal's bound or its verdict cannot differ between the text and the cards.
describe('the hot path goals as the end-of-run text judges them', () => {
  const file = JSON.parse(readFileSync(join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'loadtest', 'tests', 'fixtures', 'hot-path-goals.json'), 'utf8')) as {
    goals: { key: string; bound: number; atMost: boolean; noErrors: boolean }[];
    cases: { goal: string; headline: Headline | null; failedCells: string[]; status: string }[];
  };
  it('has the same goals, bounds and sides', () => {
    expect(HOT_PATH_GOALS.map((g) => ({ key: g.key, bound: g.bound, atMost: g.atMost, noErrors: g.noErrors ?? false }))).toEqual(file.goals);
  });
  it.each(file.cases.map((c, i) => [i, c] as const))('case %i', (_, c) => {
    const goal = HOT_PATH_GOALS.find((g) => g.key === c.goal)!;
    const headline = c.headline === null ? undefined : ({ ...c.headline, description: '' } as Headline);
    const ids = new Set((c.headline?.pairs ?? []).flatMap((p) => [p.numeratorCellId, p.denominatorCellId]));
    const cells = [...ids].map((id) => ({ id, summary: { errors: c.failedCells.includes(id) ? 3 : 0 } }) as unknown as Cell);
    expect(goalVerdict(headline, goal, cells).status).toBe(c.status);
  });
});
