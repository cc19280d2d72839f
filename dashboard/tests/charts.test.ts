import { describe, expect, it } from 'vitest';
import {
  cachingImprovement,
  compareChart,
  concurrencyChart,
  CONCURRENCY_METRICS,
  environmentRows,
  fitLabel,
  fitsFor,
  hitRatioChart,
  latencyByCacheState,
  pairCells,
  payloadScalingChart,
  payloadSize,
  temperatureChart,
} from '../src/data/charts';
import { protocolColour } from '../src/data/style';
import { resolveFilters, selectCells } from '../src/data/transforms';
import { DEFAULT_FILTERS } from '../src/data/urlState';
import { cell, measurement, readRun } from './helpers';

const A = readRun('20261124T100000Z-quick-1111111');
const B = readRun('20261125T090000Z-quick-2222222');
const EXAMPLE = readRun('20261122T070000Z-quick-a262159');

function cellsOf(run = A, patch = {}) {
  const r = resolveFilters(run.cells, { ...DEFAULT_FILTERS, ...patch });
  return selectCells(run.cells, r);
}

describe('overview charts', () => {
  it('latency by cache state: p50 and p99 per protocol, one table row per bar pair', () => {
    const spec = latencyByCacheState(cellsOf(), 's');
    expect(spec.categories).toEqual(['no cache', 'local · cold', 'local · warm', 'redis · cold', 'redis · warm', 'hybrid · cold', 'hybrid · warm']);
    expect(spec.series.map((s) => s.label)).toEqual(['REST · k6 p50', 'REST · k6 p99', 'gRPC · k6 p50', 'gRPC · k6 p99']);
    expect(spec.table.rows).toHaveLength(14);
    // the table holds exactly the plotted numbers
    const restP50 = spec.series[0].data as number[];
    expect(spec.table.rows.filter((r) => r[0] === 'REST').map((r) => r[4])).toEqual(restP50);
  });

  it('payload size: body and wire bytes per protocol; ghz has no wire bytes', () => {
    const spec = payloadSize(cellsOf(A, { tool: 'all' }), 's');
    expect(spec.series.map((s) => s.label)).toEqual(['REST · k6', 'gRPC · k6', 'gRPC · ghz']);
    expect(spec.series[0].data).toEqual([412, 182, 563]);
    expect(spec.series[2].data).toEqual([251, null, null]);
  });

  it('caching improvement: reduction of p50 and gain of throughput against no cache', () => {
    const c = [
      cell({ cacheMode: 'none', temperature: 'none', p50: 4 }),
      cell({ cacheMode: 'hybrid', temperature: 'warm', p50: 1 }),
      cell({ cacheMode: 'hybrid', temperature: 'cold', p50: 5 }),
    ];
    const spec = cachingImprovement(c, 's');
    expect(spec.categories).toEqual(['hybrid (L1+L2)']);
    expect(spec.series.map((s) => [s.label, s.data])).toEqual([
      ['REST · k6 p50 latency reduction', [75]],
      ['REST · k6 throughput gain', [300]],
    ]);
  });
});

describe('concurrency charts', () => {
  it('one line per protocol × cache mode, points sorted by users, log axis for 1..50', () => {
    const r = resolveFilters(A.cells, DEFAULT_FILTERS);
    const cells = selectCells(A.cells, r, ['concurrency']);
    const spec = concurrencyChart(cells, 'warm', CONCURRENCY_METRICS[0], 's');
    expect(spec.series).toHaveLength(8);
    expect(spec.series[0]).toMatchObject({ label: 'REST · k6 · no cache', cacheMode: 'none' });
    expect(spec.series[1]).toMatchObject({ label: 'REST · k6 · local warm', cacheMode: 'local' });
    expect((spec.series[0].data as { x: number }[]).map((p) => p.x)).toEqual([1, 10, 50]);
    expect(spec.xLog).toBe(true);
    expect(spec.table.rows).toHaveLength(8 * 3);
  });

  it('plots Hello (which touches no cache) as "not used" lines', () => {
    const r = resolveFilters(EXAMPLE.cells, { ...DEFAULT_FILTERS, operation: 'Hello' });
    const spec = concurrencyChart(selectCells(EXAMPLE.cells, r, ['concurrency']), 'warm', CONCURRENCY_METRICS[3], 's');
    expect(spec.series.length).toBeGreaterThan(0);
    expect(spec.series.every((s) => / \(not used\)$| no cache$/.test(s.label))).toBe(true);
  });
});

describe('payload scaling', () => {
  it('uses the run\'s fits, labelled with A, B and R²', () => {
    const { fits, computed } = fitsFor(EXAMPLE.fits, EXAMPLE.cells);
    expect(computed).toBe(false);
    const spec = payloadScalingChart(fits, 's');
    expect(spec.series.filter((s) => !s.hideInLegend).map((s) => s.label)).toContain(fitLabel(fits[0]));
    expect(fitLabel({ ...fits[0], protocol: 'rest', tool: 'k6', cacheMode: 'none', temperature: 'none', a: 9.0269, b: 0.08259, r2: 0.99994 }))
      .toBe('REST · k6 · no cache: 9.03 + 0.0826·N ms, R² 0.9999');
    expect(spec.table.rows[0].slice(0, 4)).toEqual(['REST', 'k6', 'none', 'none']);
  });

  it('fits the cells itself when the run carries no fits', () => {
    const c = [1, 10, 100].map((n) => cell({ operation: 'ListGroups', pageSize: n, p50: 2 + 0.01 * n }));
    const { fits, computed } = fitsFor([], c);
    expect(computed).toBe(true);
    expect(fits).toHaveLength(1);
    expect(fits[0].a).toBeCloseTo(2, 9);
    expect(fits[0].b).toBeCloseTo(0.01, 9);
    expect(fits[0].points.map((p) => p.pageSize)).toEqual([1, 10, 100]);
  });

  it('draws the fitted line through the measured page sizes', () => {
    const { fits } = fitsFor(EXAMPLE.fits, EXAMPLE.cells);
    const spec = payloadScalingChart(fits.slice(0, 1), 's');
    const line = spec.series[0].data as { x: number; y: number }[];
    expect(line.map((p) => p.x)).toEqual([0, ...fits[0].points.map((p) => p.pageSize)]);
    expect(line[0].y).toBeCloseTo(fits[0].a, 3);
  });
});

describe('cache charts', () => {
  it('hit ratios in %, null where a level is not in play', () => {
    const c = [
      cell({ cacheMode: 'local', temperature: 'warm', summary: measurement(1, { hitRatio: { l1: 0.99, l2: null, overall: 0.99 } }) }),
      cell({ cacheMode: 'redis', temperature: 'cold', summary: measurement(1, { hitRatio: { l1: null, l2: 0.02, overall: 0.02 } }) }),
    ];
    const spec = hitRatioChart(c, 's');
    expect(spec.categories).toEqual(['local · warm', 'redis · cold']);
    expect(spec.series.map((s) => [s.label, s.data])).toEqual([
      ['REST · k6 L1', [99, null]],
      ['REST · k6 L2', [null, 2]],
      ['REST · k6 overall', [99, 2]],
    ]);
  });

  it('cold, warm and none side by side per cache mode', () => {
    const spec = temperatureChart(cellsOf(), 'throughput', 's');
    expect(spec.categories).toEqual(['no cache', 'local (L1)', 'redis (L2)', 'hybrid (L1+L2)']);
    expect(spec.series.map((s) => s.label)).toEqual([
      'REST · k6 no cache', 'REST · k6 cold', 'REST · k6 warm', 'gRPC · k6 no cache', 'gRPC · k6 cold', 'gRPC · k6 warm',
    ]);
    expect(spec.series[0].data.slice(1)).toEqual([null, null, null]);
  });
});

describe('compare runs', () => {
  it('pairs cells by what they measured and plots B ÷ A', () => {
    const { pairs, onlyA, onlyB } = pairCells(A.cells, B.cells);
    expect(pairs).toHaveLength(199);
    expect(onlyA).toBe(1);
    expect(onlyB).toBe(0);
    const spec = compareChart(pairCells(cellsOf(A), cellsOf(B)).pairs, 'p50', 's');
    expect(spec.referenceY).toBe(1);
    const row = spec.table.rows[0];
    expect(row[6]).toBeCloseTo((row[5] as number) / (row[4] as number), 4);
  });

  it('lists environment fields of both runs and flags differences', () => {
    const rows = environmentRows(A.environment, B.environment);
    expect(rows.find((r) => r.key === 'jdk')).toEqual({ key: 'jdk', a: '21.0.5', b: '21.0.6', differs: true });
    expect(rows.find((r) => r.key === 'cores')).toMatchObject({ differs: false });
    expect(environmentRows({ x: null }, {})[0]).toEqual({ key: 'x', a: '—', b: '—', differs: false });
  });
});

describe('style', () => {
  it('one colour per protocol, lighter shades towards white', () => {
    expect(protocolColour('rest')).toBe('#d9480f');
    expect(protocolColour('grpc')).toBe('#1864ab');
    expect(protocolColour('grpc', 1)).toBe('#ffffff');
  });
});

describe('a run with no cells', () => {
  it('gives empty charts, not errors', () => {
    const r = resolveFilters([], DEFAULT_FILTERS);
    expect(r).toMatchObject({ operation: 'GetGroup', pageSize: null, concurrency: null });
    const specs = [
      latencyByCacheState([], 's'), payloadSize([], 's'), cachingImprovement([], 's'),
      concurrencyChart([], 'warm', CONCURRENCY_METRICS[0], 's'), hitRatioChart([], 's'),
      temperatureChart([], 'p50', 's'), compareChart([], 'p50', 's'), payloadScalingChart([], 's'),
    ];
    for (const s of specs) {
      expect(s.series).toEqual([]);
      expect(s.table.rows).toEqual([]);
    }
  });
});
