import { describe, expect, it } from 'vitest';
import {
  cacheStateLabel,
  cacheStates,
  cellKey,
  describeFilters,
  fitValue,
  isTls,
  gainPct,
  linearFit,
  median,
  ratio,
  reductionPct,
  resolveFilters,
  selectCells,
  seriesIds,
  summaryValue,
  metrics,
} from '../src/data/transforms';
import { protocolLabel, seriesName } from '../src/data/style';
import { DEFAULT_FILTERS } from '../src/data/urlState';
import { cell, readRun } from './helpers';

describe('numbers', () => {
  it('median of odd, even, empty', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBeNull();
  });

  it('ratios are null-safe and rounded', () => {
    expect(ratio(1.6, 2.24)).toBe(0.7143);
    expect(ratio(1, 0)).toBeNull();
    expect(ratio(null, 2)).toBeNull();
    expect(ratio(0.3, 0.1)).toBe(3);
  });

  it('improvement in % for latency and throughput', () => {
    expect(reductionPct(10, 2.5)).toBe(75);
    expect(reductionPct(2, 3)).toBe(-50);
    expect(gainPct(100, 540)).toBe(440);
    expect(gainPct(0, 5)).toBeNull();
  });
});

describe('linearFit', () => {
  it('recovers an exact line with R² = 1', () => {
    const pts = [1, 10, 50, 200].map((x) => ({ x, y: 0.5 + 0.02 * x }));
    const f = linearFit(pts)!;
    expect(f.a).toBeCloseTo(0.5, 10);
    expect(f.b).toBeCloseTo(0.02, 10);
    expect(f.r2).toBeCloseTo(1, 10);
    expect(fitValue(f, 100)).toBeCloseTo(2.5, 10);
  });

  it('matches a hand-computed least-squares fit', () => {
    // x = 0,1,2,3; y = 1,3,2,4: b = 0.8, a = 1.3, R² = 0.64
    const f = linearFit([{ x: 0, y: 1 }, { x: 1, y: 3 }, { x: 2, y: 2 }, { x: 3, y: 4 }])!;
    expect(f.b).toBeCloseTo(0.8, 10);
    expect(f.a).toBeCloseTo(1.3, 10);
    expect(f.r2).toBeCloseTo(0.64, 10);
  });

  it('gives null for fewer than two distinct x and R² null for flat data', () => {
    expect(linearFit([{ x: 1, y: 1 }])).toBeNull();
    expect(linearFit([{ x: 5, y: 1 }, { x: 5, y: 2 }])).toBeNull();
    expect(linearFit([{ x: 1, y: 2 }, { x: 2, y: 2 }])!.r2).toBeNull();
  });

  it("agrees with the bench's own fits in its example run", () => {
    const run = readRun('20261122T070000Z-quick-a262159');
    expect(run.fits.length).toBeGreaterThan(0);
    for (const fit of run.fits) {
      const mine = linearFit(fit.points.map((p) => ({ x: p.pageSize, y: p.latencyMs })))!;
      expect(mine.a).toBeCloseTo(fit.a, 6);
      expect(mine.b).toBeCloseTo(fit.b, 8);
      if (fit.r2 !== null) expect(mine.r2!).toBeCloseTo(fit.r2, 6);
    }
  });
});

describe('grouping', () => {
  const cells = [
    cell({ protocol: 'grpc', tool: 'ghz', cacheMode: 'hybrid', temperature: 'warm' }),
    cell({ protocol: 'rest', cacheMode: 'local', temperature: 'cold' }),
    cell({ protocol: 'grpc', cacheMode: 'none', temperature: 'none' }),
    cell({ protocol: 'rest', cacheMode: 'local', temperature: 'warm' }),
    cell({ protocol: 'rest', operation: 'Hello', cacheMode: 'hybrid', temperature: 'none' }),
  ];

  it('orders series REST first, k6 before ghz', () => {
    expect(seriesIds(cells)).toEqual([
      { protocol: 'rest', tool: 'k6', tls: false },
      { protocol: 'grpc', tool: 'k6', tls: false },
      { protocol: 'grpc', tool: 'ghz', tls: false },
    ]);
  });

  it('orders cache states no cache, then each mode cold, warm (Hello: not used)', () => {
    expect(cacheStates(cells).map(cacheStateLabel)).toEqual(['no cache', 'local · cold', 'local · warm', 'hybrid (not used)', 'hybrid · warm']);
  });

  it('takes the median over matching cells', () => {
    expect(summaryValue([cell({ p50: 1 }), cell({ p50: 3 }), cell({ p50: 10 })], metrics.p50)).toBe(3);
    expect(summaryValue([], metrics.p50)).toBeNull();
  });

  it('keys a cell by what it measured, not its id', () => {
    expect(cellKey(cell({ pageSize: null }))).toBe(cellKey(cell({ pageSize: null })));
    expect(cellKey(cell({ concurrency: 1 }))).not.toBe(cellKey(cell({ concurrency: 50 })));
  });
});

describe('resolveFilters and selectCells', () => {
  const run = readRun('20261124T100000Z-quick-1111111');

  it('chooses GetGroup and the most common concurrency by default', () => {
    const r = resolveFilters(run.cells, DEFAULT_FILTERS);
    expect(r).toMatchObject({ operation: 'GetGroup', pageSize: null, concurrency: 1, tool: 'k6', model: 'closed' });
    expect(r.options.operations).toEqual(['GetGroup', 'ListGroups', 'Hello']);
    expect(r.options.tools).toEqual(['k6', 'ghz']);
    expect(r.options.concurrencies).toEqual([1, 10, 50]);
  });

  it('picks the page size most cells have, and keeps a valid explicit choice', () => {
    expect(resolveFilters(run.cells, { ...DEFAULT_FILTERS, operation: 'ListGroups' })).toMatchObject({ pageSize: 20, concurrency: 1 });
    expect(resolveFilters(run.cells, { ...DEFAULT_FILTERS, operation: 'ListGroups', pageSize: 50, concurrency: 10 })).toMatchObject({ pageSize: 50, concurrency: 10 });
  });

  it('replaces choices the run does not have', () => {
    const r = resolveFilters(run.cells, { ...DEFAULT_FILTERS, operation: 'ListGroups', pageSize: 999, concurrency: 7 });
    expect(r.pageSize).toBe(20);
    expect(r.options.concurrencies).toContain(r.concurrency);
  });

  it('selects one cell per protocol, tool and cache state', () => {
    const r = resolveFilters(run.cells, { ...DEFAULT_FILTERS, concurrency: 50 });
    const cells = selectCells(run.cells, r);
    expect(cells).toHaveLength(2 * 7);
    expect(new Set(cells.map(cellKey)).size).toBe(cells.length);
    expect(selectCells(run.cells, { ...r, tool: 'all' })).toHaveLength(3 * 7);
    expect(selectCells(run.cells, r, ['concurrency'])).toHaveLength(3 * 2 * 7);
  });
});

describe('the tls dimension', () => {
  const plainAndTls = [
    cell({ protocol: 'rest', concurrency: 50, p50: 2 }),
    cell({ protocol: 'grpc', concurrency: 50, p50: 1, tls: false }),
    cell({ protocol: 'rest', concurrency: 50, p50: 3, tls: true }),
    cell({ protocol: 'grpc', concurrency: 50, p50: 2, tls: true }),
    cell({ protocol: 'grpc', concurrency: 1, p50: 2, tls: true }),
  ];

  it('treats a cell without the field as plain', () => {
    expect(isTls(cell({}))).toBe(false);
    expect(isTls(cell({ tls: false }))).toBe(false);
    expect(isTls(cell({ tls: true }))).toBe(true);
  });

  it('selects plain cells by default and TLS cells when asked, never both', () => {
    const plain = resolveFilters(plainAndTls, DEFAULT_FILTERS);
    expect(plain.tls).toBe(false);
    expect(plain.options.transports).toEqual([false, true]);
    expect(selectCells(plainAndTls, plain).map((c) => c.summary.latencyMs.p50)).toEqual([2, 1]);
    const tls = resolveFilters(plainAndTls, { ...DEFAULT_FILTERS, tls: true });
    // the other choices are made among the TLS cells: concurrency 50 and 1 both exist there
    expect(tls.options.concurrencies).toEqual([1, 50]);
    expect(selectCells(plainAndTls, { ...tls, concurrency: 50 }).every(isTls)).toBe(true);
    expect(describeFilters({ ...tls, concurrency: 50 })).toContain('over TLS');
  });

  it('falls back to the transport the run has', () => {
    const onlyPlain = plainAndTls.filter((c) => !isTls(c));
    const r = resolveFilters(onlyPlain, { ...DEFAULT_FILTERS, tls: true });
    expect(r.tls).toBe(false);
    expect(r.options.transports).toEqual([false]);
    expect(describeFilters(r)).not.toMatch(/TLS|plain/);
  });

  it('labels TLS series and keys TLS cells apart from plain ones', () => {
    const tlsCells = plainAndTls.filter(isTls);
    expect(seriesIds(tlsCells)).toEqual([{ protocol: 'rest', tool: 'k6', tls: true }, { protocol: 'grpc', tool: 'k6', tls: true }]);
    expect(seriesName('grpc', 'k6', true)).toBe('gRPC · k6 · TLS');
    expect(seriesName('grpc', 'k6')).toBe('gRPC · k6');
    expect(protocolLabel('grpc', true)).toBe('gRPC · TLS');
    expect(cellKey(plainAndTls[1])).not.toBe(cellKey({ ...plainAndTls[1], tls: true }));
  });
});

