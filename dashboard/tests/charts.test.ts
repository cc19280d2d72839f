import { isValidElement } from 'react';
import { describe, expect, it } from 'vitest';
import { hitRatioChart, temperatureChart } from '../src/data/charts/cache';
import { beforeAfter, compareChart, environmentRows, intervalsCompare, pairCells } from '../src/data/charts/compare';
import { CONCURRENCY_METRICS, concurrencyChart } from '../src/data/charts/concurrency';
import { latencyVsThroughputChart, PERCENTILE_TICKS, percentileX, spectrumChart } from '../src/data/charts/latency';
import { cpuPerRequestChart, latencyByCacheState, payloadSize, serviceCpuByThreadChart, throughputByCacheState } from '../src/data/charts/overview';
import { fitLabel, payloadScalingChart } from '../src/data/charts/payloadScaling';
import type { ChartSpec, Datum } from '../src/data/charts/spec';
import { timelineChart, windowName } from '../src/data/charts/timeline';
import { formatCell, formatValue } from '../src/data/format';
import { protocolColour } from '../src/data/style';
import { resolveFilters, selectCells } from '../src/data/transforms';
import type { Cell, Run } from '../src/data/types';
import { DEFAULT_FILTERS } from '../src/data/urlState';
import { PayloadScaling } from '../src/views/PayloadScaling';
import { cell, iv, readRun, RUN_A, RUN_B, summary } from './helpers';

const A = readRun(RUN_A);
const B = readRun(RUN_B);

/** The chart specs a view's element tree hands its ChartCards (a view is a plain function of its props). */
function chartSpecs(node: unknown): ChartSpec[] {
  if (Array.isArray(node)) return node.flatMap(chartSpecs);
  if (!isValidElement<{ spec?: ChartSpec; children?: unknown }>(node)) return [];
  return [...(node.props.spec ? [node.props.spec] : []), ...chartSpecs(node.props.children)];
}

function cellsOf(run: Run = A, patch = {}, free: ('concurrency' | 'pageSize')[] = []) {
  const r = resolveFilters(run.cells, { ...DEFAULT_FILTERS, ...patch });
  return selectCells(run.cells, r, free);
}
const byId = (id: string) => A.cells.find((c) => c.id === id)!;
const values = (data: (Datum | null)[]) => data.map((d) => (d === null ? null : d.y));

describe('overview charts: figures with their intervals', () => {
  it('latency by cache state: p50 and p99 bars with error bars from latencyIntervalMs', () => {
    const spec = latencyByCacheState(cellsOf(), 's');
    expect(spec.errorBars).toBe(true);
    expect(spec.categories).toEqual(['no cache', 'local · warm', 'redis · warm', 'hybrid · cold', 'hybrid · warm']);
    expect(spec.series.map((s) => s.label)).toEqual(['REST · k6 p50', 'REST · k6 p99', 'gRPC · k6 p50', 'gRPC · k6 p99']);
    const warm = byId('rest-k6-GetGroup-hybrid-warm-c50').summary.latencyIntervalMs;
    expect(spec.series[0].data[4]).toMatchObject({ y: warm.p50.value, low: warm.p50.low, high: warm.p50.high, flag: null, cellId: 'rest-k6-GetGroup-hybrid-warm-c50' });
    expect(spec.series[1].data[4]).toMatchObject({ y: warm.p99.value, low: warm.p99.low, high: warm.p99.high });
    // the table holds exactly the plotted numbers, with the bounds and the cell
    expect(spec.table.columns).toEqual(['Protocol', 'Tool', 'Cache mode', 'Temperature', 'p50 (ms)', 'p50 low', 'p50 high', 'p99 (ms)', 'p99 low', 'p99 high', 'Cell', 'Flags']);
    expect(spec.table.rows.filter((r) => r[0] === 'REST').map((r) => r[4])).toEqual(values(spec.series[0].data));
    expect(spec.table.formats).toHaveLength(spec.table.columns.length);
  });

  it('latency by cache state says when its cells are closed at many users: their p50 is queueing', () => {
    const spec = latencyByCacheState(cellsOf(A, { concurrency: 50 }), 's');
    expect(spec.title).toBe('Latency: no cache, cold and warm (p50 and p99, 95 % intervals): closed cells at 50 users, queueing included');
    expect(spec.yTitle).toBe('Latency, queueing included (ms)');
    expect(spec.notes).toContainEqual(expect.stringMatching(/^At 50 users .*users ÷ throughput/));
    const one = latencyByCacheState(cellsOf(A, { concurrency: 1 }), 's');
    expect(one.title).toMatch(/^Latency: no cache, cold and warm/);
    expect(one.notes?.some((n) => /queueing/.test(n)) ?? false).toBe(false);
  });

  it('throughput by cache state greys the flagged ghz cell and says why', () => {
    const spec = throughputByCacheState(cellsOf(A, { tool: 'all' }), 's');
    const ghz = spec.series.find((s) => s.label === 'gRPC · ghz')!;
    expect(ghz.hatched).toBe(true);
    const d = ghz.data.find((x) => x !== null)!;
    expect(d.flag).toMatch(/generator used 9\d % of its 1 core/);
    expect(spec.notes).toEqual([expect.stringMatching(/^Greyed: grpc-ghz-GetGroup-hybrid-warm-c50 — start 1 round 1: generator used/)]);
    const i = spec.table.rows.findIndex((r) => r[1] === 'ghz');
    expect(spec.table.rowFlags![i]).toMatch(/generator used/);
    expect(spec.table.rows[i].at(-1)).toBe(spec.table.rowFlags![i]);
    expect(spec.series.find((s) => s.label === 'REST · oha')!.data.some((x) => x?.flag)).toBe(false);
  });

  it('payload size: body and wire bytes of one cell per protocol; ghz has no wire bytes', () => {
    const spec = payloadSize(cellsOf(A, { tool: 'all' }), 's');
    expect(spec.series.map((s) => s.label)).toEqual(['REST · k6', 'REST · oha', 'gRPC · k6', 'gRPC · ghz']);
    expect(values(spec.series[0].data)).toEqual([412, 182, 563]);
    expect(values(spec.series[3].data)).toEqual([251, null, null]);
    expect(spec.table.rows[0].at(-1)).toBe('rest-k6-GetGroup-none-none-c50');
  });

  it('payload size draws wire bytes only where every series that has them counts them the same way', () => {
    // REST over oha (no wire bytes), gRPC over h2load (received only, frames and HPACK headers
    // included) and both wires over k6 (its own counters): k6's and h2load's received bytes are not
    // the same measure, so received is not drawn; sent, counted by k6 alone, is
    const summaryWith = (body: number, sent: number | null, received: number | null) =>
      summary(1, { bodyBytes: body, wireBytesSentPerRequest: sent, wireBytesReceivedPerRequest: received });
    const cells = [
      cell({ protocol: 'rest', tool: 'oha', summary: summaryWith(640, null, null) }),
      cell({ protocol: 'grpc', tool: 'h2load', transport: 'h2', summary: summaryWith(200, null, 149) }),
      cell({ protocol: 'rest', tool: 'k6', summary: summaryWith(640, 182, 880) }),
      cell({ protocol: 'grpc', tool: 'k6', transport: 'h2', summary: summaryWith(231, 120, 300) }),
    ];
    const spec = payloadSize(cells, 's');
    const received = spec.categories!.findIndex((c) => c.startsWith('Wire bytes received'));
    const sent = spec.categories!.findIndex((c) => c.startsWith('Wire bytes sent'));
    for (const s of spec.series) expect(s.data[received] ?? null).toBeNull();
    expect(spec.categories![sent]).toMatch(/as k6 counts them/);
    expect(Object.fromEntries(spec.series.map((s) => [s.label, s.data[sent]?.y ?? null])))
      .toEqual({ 'REST · k6': 182, 'REST · oha': null, 'gRPC · k6': 120, 'gRPC · h2load': null });
    expect(spec.notes).toEqual([expect.stringMatching(/^Wire bytes received .*not drawn.*k6.*h2load/)]);
    // the table keeps every figure, each with how its tool counts it
    const h2load = spec.table.rows.find((r) => r[1] === 'h2load')!;
    expect(h2load.slice(2, 5)).toEqual([200, null, 149]);
    expect(spec.table.columns).toContain('Wire bytes counted by');
    expect(String(h2load[spec.table.columns.indexOf('Wire bytes counted by')])).toMatch(/received only/);
    // with k6 alone both are drawn
    const k6 = payloadSize(cells.filter((c) => c.tool === 'k6'), 's');
    expect(k6.series.map((s) => values(s.data))).toEqual([[640, 182, 880], [231, 120, 300]]);
    expect(k6.notes ?? []).toEqual([]);
  });
});

describe('concurrency charts', () => {
  it('one line per protocol × cache mode, points by users, error bars where run.json has intervals', () => {
    const cells = cellsOf(A, {}, ['concurrency']);
    const p50 = concurrencyChart(cells, 'warm', CONCURRENCY_METRICS[0], 's');
    expect(p50.errorBars).toBe(true);
    expect(p50.xAxis).toBe('log');
    const hybrid = p50.series.find((s) => s.label === 'REST · k6 · hybrid warm')!;
    expect(hybrid.data.map((d) => d!.x)).toEqual([1, 10, 50]);
    expect(hybrid.data[0]).toMatchObject({ y: byId('rest-k6-GetGroup-hybrid-warm-c1').summary.latencyIntervalMs.p50.value });
    expect(hybrid.data[0]!.low).not.toBeNull();
    const p95 = concurrencyChart(cells, 'warm', CONCURRENCY_METRICS[1], 's');
    expect(p95.errorBars).toBe(false);
    expect(p95.series[0].data[0]!.low).toBeNull();
    expect(p50.table.rows).toHaveLength(p50.series.reduce((n, s) => n + s.data.length, 0));
  });

  it('titles say what each figure is: every percentile pooled over the windows, p95 without an interval', () => {
    // windows.py: latencyIntervalMs' p50 and p99 and latencyMs' p95 all pool every window's requests;
    // only p50 and p99 carry a bootstrap interval
    expect(CONCURRENCY_METRICS.map((m) => m.title)).toEqual([
      'Latency p50 vs concurrent users (pooled over windows, 95 % intervals)',
      'Latency p95 vs concurrent users (pooled over windows, no interval)',
      'Latency p99 vs concurrent users (pooled over windows, 95 % intervals)',
      'Throughput vs concurrent users (95 % intervals)',
    ]);
  });

  it('plots Hello (no cache) as "no cache" lines', () => {
    const r = resolveFilters(A.cells, { ...DEFAULT_FILTERS, operation: 'Hello' });
    const spec = concurrencyChart(selectCells(A.cells, r, ['concurrency']), 'warm', CONCURRENCY_METRICS[3], 's');
    expect(spec.series.map((s) => s.label)).toEqual(['REST · k6 · no cache', 'gRPC · k6 · no cache']);
    // the REST Hello cell has a flagged window: the point is greyed
    expect(spec.series[0].data[0]!.flag).toMatch(/outside the bench/);
  });
});

describe('latency spectrum', () => {
  it('puts a percentile at 1/(1−p) and labels the ticks 50 %, 90 %, 99 %, 99.9 %, 99.99 %', () => {
    expect(percentileX(0)).toBe(1);
    expect(percentileX(50)).toBe(2);
    expect(percentileX(90)).toBeCloseTo(10, 9);
    expect(percentileX(99.9)).toBeCloseTo(1000, 6);
    expect(PERCENTILE_TICKS.map((t) => t.label)).toEqual(['0%', '50%', '90%', '99%', '99.9%', '99.99%', '99.999%']);
  });

  it('one line per selected cell, from run.json’s spectrum, on log axes', () => {
    const cells = cellsOf();
    const spec = spectrumChart(cells, 's');
    expect(spec).toMatchObject({ xAxis: 'percentile', yLog: true, kind: 'line' });
    expect(spec.series).toHaveLength(cells.length);
    const c = byId('rest-k6-GetGroup-hybrid-warm-c50');
    const line = spec.series.find((s) => s.label === 'REST · k6 · hybrid warm')!;
    expect(line.data.map((d) => d!.y)).toEqual(c.summary.spectrum.map((p) => p.ms));
    expect(line.data[5]).toMatchObject({ x: 2, xLabel: 'p50' });
    // 122,208 samples reach p99.99 but not p99.995
    expect(line.data.at(-1)!.xLabel).toBe('p99.99');
    expect(spec.table.rows.find((r) => r[11] === c.id)!.slice(4, 11)).toEqual([
      c.summary.latencyMs.p50, c.summary.latencyMs.p90, c.summary.latencyMs.p99, c.summary.latencyMs.p999,
      c.summary.latencyMs.p9999, c.summary.latencyMs.max, c.summary.samples,
    ]);
  });

  it('leaves p = 100 off the axis and keeps a flagged cell grey', () => {
    const c = cell({
      flags: [{ code: 'errors', reason: 'start 1 round 1: 3 % errors' }],
      headlineEligible: false,
      summary: summary(1, { spectrum: [{ percentile: 50, ms: 1 }, { percentile: 99, ms: 3 }, { percentile: 100, ms: 9 }] }),
    });
    const spec = spectrumChart([c], 's');
    expect(spec.series[0].data.map((d) => d!.xLabel)).toEqual(['p50', 'p99']);
    expect(spec.series[0].data[0]!.flag).toBe('start 1 round 1: 3 % errors');
    // after the note that its 10 users' latency is mostly queueing
    expect(spec.notes?.slice(1)).toEqual([`Greyed: ${c.id} — start 1 round 1: 3 % errors`]);
  });
});

describe('latency vs throughput', () => {
  const spec = latencyVsThroughputChart(A.sweeps, 's');

  it('one p50 and one p99 line per sweep against the throughput served, log y', () => {
    expect(spec.series.map((s) => s.label)).toEqual(['REST · k6 p50', 'REST · k6 p99', 'gRPC · k6 p50', 'gRPC · k6 p99']);
    expect(spec.yLog).toBe(true);
    const sweep = A.sweeps[0];
    expect(spec.series[0].data.map((d) => d!.x)).toEqual(sweep.points.map((p) => p.throughputRps));
    expect(spec.series[1].data.map((d) => d!.y)).toEqual(sweep.points.map((p) => p.p99));
    expect(spec.series[1].dash).toEqual([6, 4]);
    expect(spec.series[0].data[0]!.xLabel).toBe(`${formatValue(sweep.points[0].throughputRps, 'req/s')} (target 1,000/s)`);
  });

  it('marks each knee and says why', () => {
    expect(spec.markers!.map((m) => [m.label, m.x])).toEqual([
      ['REST · k6 knee', A.sweeps[0].knee!.throughputRps],
      ['gRPC · k6 knee', A.sweeps[1].knee!.throughputRps],
    ]);
    expect(spec.notes!.filter((n) => /knee at/.test(n))).toEqual([
      'REST · k6 knee at 10,000 req/s (target 10,000/s): p99 313 ms above 50 ms at 11000/s; 10000/s was the last rate within limits',
      'gRPC · k6 knee at 8,110 req/s (target 8,000/s): p99 318 ms above 50 ms at 12000/s; 8000/s was the last rate within limits',
    ]);
  });

  it('the fixture’s knees are where the bench puts them: the last rate within the limits', () => {
    // assemble.py sweep_records: the knee is the last point before the first that broke a limit
    for (const sweep of [...A.sweeps, ...B.sweeps]) {
      const knee = sweep.knee!;
      const i = sweep.points.findIndex((p) => p.targetRate === knee.targetRate);
      const point = sweep.points[i];
      expect(point.p99, sweep.id).not.toBeNull();
      expect(point.p99!, sweep.id).toBeLessThanOrEqual(sweep.limits.p99Ms);
      expect(knee.throughputRps).toBe(point.throughputRps);
      expect(sweep.points[i + 1].p99!, sweep.id).toBeGreaterThan(sweep.limits.p99Ms);
    }
  });

  it('greys the points with dropped arrivals, with the reason', () => {
    const last = spec.series[0].data.at(-1)!;
    expect(last.flag).toMatch(/arrivals not started/);
    const i = spec.table.rows.findIndex((r) => r[9] === 'rest-k6-GetGroup-hybrid-warm-c200-r11000');
    expect(spec.table.rows[i][7]).toBeGreaterThan(0);
    expect(spec.table.rowFlags![i]).toMatch(/dropped|arrivals not started/);
    expect(spec.notes).toContainEqual(expect.stringMatching(/^Greyed: rest-k6-GetGroup-hybrid-warm-c200-r11000 — start 1 round 1: /));
  });

  it('does not grey a point with informational flags only: the bench keeps it in the headline; its reasons are noted', () => {
    // other-cpu, few-samples and jit keep a cell in the headline (isFlagged): its sweep point was greyed all the same
    const reason = 'start 1 round 1: 14 samples, too few for a p99';
    const s = { ...A.sweeps[0], points: A.sweeps[0].points.map((p, i) => (i === 0 ? { ...p, flags: [{ code: 'few-samples' as const, reason }] } : p)) };
    const spec = latencyVsThroughputChart([s], 's');
    const id = s.points[0].cellId;
    expect(spec.series[0].data[0]!.flag).toBeNull();
    expect(spec.series[1].data[0]!.flag).toBeNull();
    expect(spec.table.rowFlags![0]).toBeNull();
    expect(spec.table.rows[0].at(-1)).toBe(reason);
    expect(spec.notes!.filter((n) => n.startsWith(`Greyed: ${id} `))).toEqual([]);
    expect(spec.notes).toContain(`Noted, kept in the headline: ${id} — ${reason}`);
    // an excluding flag beside it still greys the point
    const both = { ...s, points: s.points.map((p, i) => (i === 0 ? { ...p, flags: [...p.flags, { code: 'errors' as const, reason: 'e' }] } : p)) };
    expect(latencyVsThroughputChart([both], 's').series[0].data[0]!.flag).toBe(`${reason}; e`);
  });

  it('notes a sweep without a knee', () => {
    const s = { ...A.sweeps[0], knee: null };
    expect(latencyVsThroughputChart([s], 's').notes![0]).toBe('REST · k6: no knee within the sweep (limits: p99 50 ms, dropped arrivals 1%)');
  });

  it('tells a sweep past its limits at its lowest rate from one that never reached them', () => {
    const first = A.sweeps[0].points[0];
    const reason = `p99 120 ms above 50 ms at ${first.targetRate}/s, the sweep's lowest rate: the knee is at or below it`;
    const s = { ...A.sweeps[0], knee: null, saturatedAtLowest: { targetRate: first.targetRate, throughputRps: first.throughputRps, reason } };
    const spec = latencyVsThroughputChart([s], 's');
    expect(spec.notes![0]).toBe(`REST · k6: saturated at or below its lowest rate (${formatValue(first.targetRate, '/s')}): ${reason}`);
    expect(spec.notes![0]).not.toMatch(/no knee/);
    expect(spec.markers).toEqual([]);
  });
});

describe('over time', () => {
  const hello = byId('rest-k6-Hello-none-none-c50');

  it('p50 and p99 per slice, one line per window (p99 dashed, toggled with its p50)', () => {
    const spec = timelineChart(hello, 'latency');
    const legend = spec.series.filter((s) => !s.hideInLegend).map((s) => s.label);
    expect(legend).toEqual(['start 1 · round 1', 'start 1 · round 2 (flagged)', 'start 2 · round 1', 'start 2 · round 2']);
    const p99 = spec.series[1];
    expect(p99).toMatchObject({ label: 'start 1 · round 1 p99', partnerOf: 'start 1 · round 1', hideInLegend: true, dash: [6, 4] });
    expect(spec.series[0].data.map((d) => d!.x)).toEqual(hello.windows[0].timeline.map((s) => s.t));
    expect(spec.series[0].data.map((d) => d!.y)).toEqual(hello.windows[0].timeline.map((s) => s.p50));
  });

  it('greys a flagged window, with its reason', () => {
    const spec = timelineChart(hello, 'latency');
    expect(spec.series[2].flag).toBe('processes outside the bench used 0.31 cores (> 0.2); generator used 97 % of its 1 core (≥ 95 %)');
    expect(spec.series[0].flag).toBeNull();
    expect(spec.notes).toEqual(['Greyed: start 1 · round 2 — processes outside the bench used 0.31 cores (> 0.2); generator used 97 % of its 1 core (≥ 95 %)']);
    expect(spec.table.rowFlags!.filter(Boolean)).toHaveLength(hello.windows[1].timeline.length);
  });

  it('does not grey a window with informational flags only (other-cpu, few-samples, jit); its reasons are noted', () => {
    const reason = 'start 1 round 1: the service was compiling';
    const jit = { ...hello, windows: hello.windows.map((w, i) => (i === 0 ? { ...w, flags: [{ code: 'jit' as const, reason }] } : w)) };
    const spec = timelineChart(jit, 'latency');
    expect(spec.series[0]).toMatchObject({ label: 'start 1 · round 1', flag: null });
    expect(spec.series[0].data.every((d) => d!.flag === null)).toBe(true);
    expect(spec.notes).toContain(`Noted, kept in the headline: start 1 · round 1 — ${reason}`);
    expect(spec.notes!.filter((n) => n.startsWith('Greyed: start 1 · round 1 '))).toEqual([]);
    const rows = spec.table.rows.filter((r) => r[0] === 'start 1 · round 1');
    expect(rows.every((r) => r.at(-1) === reason)).toBe(true);
    expect(spec.table.rowFlags!.slice(0, rows.length).every((f) => f === null)).toBe(true);
    // the window that is also generator-saturated stays greyed
    expect(spec.series[2].flag).toMatch(/generator used 97 %/);
  });

  it('numbers windows from 1, as the bench’s flag reasons do ("start 1 round 2: …")', () => {
    for (const c of A.cells) {
      for (const w of c.windows.filter((x) => x.flags.length > 0)) {
        const prefix = `${windowName(w).replace(' · ', ' ')}: `;
        expect(c.flags.filter((f) => f.reason.startsWith(prefix)).map((f) => f.code)).toEqual(w.flags.map((f) => f.code));
      }
    }
    expect(windowName({ start: 0, round: 0 })).toBe('start 1 · round 1');
  });

  it('throughput per slice', () => {
    const spec = timelineChart(hello, 'rps');
    expect(spec.series).toHaveLength(4);
    expect(spec.series[0].data.map((d) => d!.y)).toEqual(hello.windows[0].timeline.map((s) => s.rps));
    expect(spec.unit).toBe('req/s');
  });
});

describe('CPU per request', () => {
  it('server CPU with its interval per cache state; the breakdown in the table', () => {
    const spec = cpuPerRequestChart(cellsOf(), 's');
    expect(spec.errorBars).toBe(true);
    expect(spec.unit).toBe('µs');
    const c = byId('grpc-k6-GetGroup-none-none-c50');
    const cpu = c.summary.cpuUsPerRequest;
    expect(spec.series.find((s) => s.label === 'gRPC · k6')!.data[0]).toMatchObject({ y: cpu.server.value, low: cpu.server.low, high: cpu.server.high });
    expect(spec.table.columns.slice(4, 14)).toEqual([
      'server (µs)', 'server low', 'server high', 'service (µs)', "service: requests' code on the carriers (µs)",
      'service: I/O threads (µs)', 'MariaDB (µs)', 'Redis (µs)', 'generator (µs)', 'generator cores',
    ]);
    const row = spec.table.rows.find((r) => r[14] === c.id)!;
    const byKind = c.summary.serviceThreads!.cpuUsPerRequestByKind!;
    expect(row.slice(4, 14)).toEqual([cpu.server.value, cpu.server.low, cpu.server.high, cpu.service, byKind.carrier, byKind.io,
      cpu.mariadb, cpu.redis, cpu.generator, c.summary.generatorCores]);
    // a run from before the bench split the service's CPU by thread: those two are empty
    const before = cpuPerRequestChart(cellsOf(B), 's').table;
    expect(before.rows.every((r) => r[8] === null && r[9] === null)).toBe(true);
  });

});

describe("the service's CPU by thread", () => {
  it('stacks the carriers, the I/O threads and the rest per protocol and tool, from the cell the CPU chart shows', () => {
    const cells = cellsOf(A, { tool: 'all' });
    const spec = serviceCpuByThreadChart(cells, 's');
    expect(spec.kind).toBe('bar');
    expect(spec.stacked).toBe(true);
    expect(spec.errorBars).toBeFalsy();
    expect(spec.categories).toEqual(cpuPerRequestChart(cells, 's').categories);
    expect(spec.series.map((s) => s.label).slice(0, 6)).toEqual([
      'REST · k6: carriers', 'REST · k6: I/O threads', 'REST · k6: other threads',
      'REST · oha: carriers', 'REST · oha: I/O threads', 'REST · oha: other threads',
    ]);
    // one stack per protocol and tool, its parts in the protocol's colour from dark to light
    expect(spec.series.slice(0, 3).map((s) => s.stack)).toEqual(['REST · k6', 'REST · k6', 'REST · k6']);
    expect(spec.series.slice(0, 3).map((s) => s.shade)).toEqual([0, 0.45, 0.75]);
    const warm = spec.categories!.indexOf('hybrid · warm');
    const c = byId('grpc-k6-GetGroup-hybrid-warm-c50');
    const k = c.summary.serviceThreads!.cpuUsPerRequestByKind!;
    const part = (name: string) => spec.series.find((s) => s.label === `gRPC · k6: ${name}`)!.data[warm]!;
    expect(part('carriers')).toMatchObject({ y: k.carrier, cellId: c.id, flag: null });
    expect(part('I/O threads').y).toBe(k.io);
    expect(part('other threads').y).toBeCloseTo(k.redis + k.gc + k.jit + k.other, 9);
    // the table: the plotted parts, the service's own figure (threads that ended in a window are only in
    // that), and every kind
    const row = spec.table.rows.find((r) => r.at(-2) === c.id)!;
    expect(spec.table.columns).toEqual([
      'Protocol', 'Tool', 'Cache mode', 'Temperature', 'carriers (µs)', 'I/O threads (µs)', 'other threads (µs)',
      'service (µs)', 'carrier (µs)', 'io (µs)', 'redis (µs)', 'gc (µs)', 'jit (µs)', 'other (µs)', 'Cell', 'Flags',
    ]);
    expect(row.slice(4, 14)).toEqual([part('carriers').y, part('I/O threads').y, part('other threads').y,
      c.summary.cpuUsPerRequest.service, k.carrier, k.io, k.redis, k.gc, k.jit, k.other]);
    expect(spec.table.formats).toHaveLength(spec.table.columns.length);
  });

  it('says the parts are read over another span than the service figure beside them, so their sum is not it', () => {
    // results/20261202T055350Z-hotpath-974a617: the threads' sum above the service's figure in 13 of 14 cells,
    // where the view said it "can fall short" of it
    const spec = serviceCpuByThreadChart(cellsOf(A, { tool: 'all' }), 's');
    expect(spec.subtitle).toMatch(/^s; .*whole run.*measured span only.*either way/);
  });

  it('greys the parts of a flagged cell, with its reason', () => {
    const spec = serviceCpuByThreadChart(cellsOf(A, { tool: 'all' }), 's');
    const warm = spec.categories!.indexOf('hybrid · warm');
    const ghz = spec.series.filter((s) => s.stack === 'gRPC · ghz').map((s) => s.data[warm]!);
    expect(ghz).toHaveLength(3);
    for (const d of ghz) expect(d.flag).toMatch(/generator used 9\d % of its 1 core/);
    expect(spec.notes).toEqual([expect.stringMatching(/^Greyed: grpc-ghz-GetGroup-hybrid-warm-c50 — /)]);
  });

  it('says so, instead of drawing nothing, for a run from before the bench split it', () => {
    const spec = serviceCpuByThreadChart(cellsOf(B), 's');
    expect(spec.series).toEqual([]);
    expect(spec.table.rows).toEqual([]);
    expect(spec.emptyText).toMatch(/do not split the service's CPU by thread/);
  });
});

describe('payload scaling', () => {
  it('draws the run’s fits, labelled with A, B and R² at three digits', () => {
    const spec = payloadScalingChart(A.fits, 's');
    expect(spec.series.filter((s) => !s.hideInLegend).map((s) => s.label)).toEqual(A.fits.map(fitLabel));
    expect(fitLabel({ ...A.fits[0], a: 9.0269, b: 0.08259, r2: 0.99994 })).toBe('REST · k6 · hybrid warm: 9.03 + 0.0826·N ms, R² 0.9999');
    const line = spec.series[0].data;
    expect(line.map((d) => d!.x)).toEqual([0, 1, 10, 50]);
    expect(line[0]!.y).toBeCloseTo(A.fits[0].a, 9);
    expect(spec.table.rows[0][spec.table.columns.indexOf('Measured points')]).toMatch(/^N=1: [\d.]+ ms; N=10: /);
  });

  it('the view draws no traced fit: the bench fits traced cells apart, as the charts never show a traced cell', () => {
    // stats.py keys a traced fit apart ("traced"); the view drew it with the untraced fit's label and colour
    const traced = A.fits.map((f) => ({ ...f, tracing: true as const, a: f.a * 2 }));
    const run = { ...A, fits: [...A.fits, ...traced] };
    const el = PayloadScaling({ run, filters: DEFAULT_FILTERS, resolved: resolveFilters(A.cells, DEFAULT_FILTERS), onFilters: () => {},
      cellId: null, onCell: () => {}, cellHref: () => '' });
    const spec = chartSpecs(el).find((x) => x.key === 'payload-scaling')!;
    expect(spec.series.filter((x) => !x.hideInLegend).map((x) => x.label)).toEqual(A.fits.map(fitLabel));
  });

  it('greys a measured point whose cell the bench flagged, says why, and flags the fit built on it', () => {
    const id = 'rest-k6-ListGroups-n10-hybrid-warm-c10';
    const reason = 'start 1 round 2: processes outside the bench used 0.31 cores (> 0.2)';
    const cells = A.cells.map((c) => (c.id === id ? { ...c, flags: [{ code: 'other-cpu', reason }], headlineEligible: false } as Cell : c));
    const spec = payloadScalingChart(A.fits, 's', cells);
    const measured = spec.series.find((s) => s.partnerOf === fitLabel(A.fits[0]))!;
    expect(measured.data.map((d) => d!.flag ?? null)).toEqual([null, reason, null]);
    expect(measured.data[1]).toMatchObject({ cellId: id });
    expect(spec.notes).toContain(`Greyed: ${id} — ${reason}`);
    const row = spec.table.rows.findIndex((r) => r[0] === 'REST');
    expect(spec.table.rowFlags?.[row]).toMatch(/N=10: start 1 round 2: processes outside the bench/);
    expect(spec.table.rowFlags?.[spec.table.rows.findIndex((r) => r[0] === 'gRPC')]).toBeNull();
  });

  it('prints R² in the table as in the legend and the terminal report: four decimals', () => {
    const spec = payloadScalingChart([{ ...A.fits[0], r2: 0.999941234 }], 's');
    const i = spec.table.columns.indexOf('R²');
    expect(formatCell(spec.table.rows[0][i], spec.table.formats![i])).toBe('0.9999');
    expect(spec.table.rows[0][i]).toBe(0.999941234);   // the CSV keeps run.json's number
    expect(formatCell(null, spec.table.formats![i])).toBe('—');
  });

  it('prints the server CPU fit’s R² beside its A and B, as the p50 fit’s (the README reads the fit by it)', () => {
    const spec = payloadScalingChart([{ ...A.fits[0], serverCpu: { a: 30.1, b: 0.0551, r2: 0.99712 } }], 's');
    const i = spec.table.columns.indexOf('server CPU R²');
    expect(i).toBe(spec.table.columns.indexOf('server CPU B (µs/row)') + 1);
    expect(formatCell(spec.table.rows[0][i], spec.table.formats![i])).toBe('0.9971');
    const none = payloadScalingChart([{ ...A.fits[0], serverCpu: null }], 's');
    expect(formatCell(none.table.rows[0][i], none.table.formats![i])).toBe('—');
  });

  it('says that A and B are fitted to a closed-model p50 at many users, queueing included, not a request’s own cost', () => {
    // the fixture's fits are over closed cells at 10 users
    const spec = payloadScalingChart(A.fits, 's');
    expect(spec.title).toMatch(/closed-model p50/);
    expect(spec.yTitle).toMatch(/queueing/);
    expect(spec.notes).toEqual([expect.stringMatching(/^At 10 users .*queueing.*users ÷ throughput.*not a request’s fixed cost/)]);
    expect(spec.table.columns[4]).toMatch(/^A \(ms, .*p50/);
    // one user: the p50 is a request's own time, and no such note
    const one = payloadScalingChart(A.fits.map((f) => ({ ...f, concurrency: 1 })), 's');
    expect(one.notes ?? []).toEqual([]);
  });
});

describe('cache charts', () => {
  it('hit ratios in %, null where a level is not in play', () => {
    const c = [
      cell({ cacheMode: 'local', temperature: 'warm', summary: summary(1, { hitRatio: { l1: 0.99, l2: null, overall: 0.99 } }) }),
      cell({ cacheMode: 'redis', temperature: 'cold', summary: summary(1, { hitRatio: { l1: null, l2: 0.02, overall: 0.02 } }) }),
    ];
    const spec = hitRatioChart(c, 's');
    expect(spec.categories).toEqual(['local · warm', 'redis · cold']);
    expect(spec.series.map((s) => [s.label, values(s.data)])).toEqual([
      ['REST · k6 L1', [99, null]],
      ['REST · k6 L2', [null, 2]],
      ['REST · k6 overall', [99, 2]],
    ]);
    // the table keeps the fractions (printed as %)
    expect(spec.table.rows[0].slice(4, 7)).toEqual([0.99, null, 0.99]);
  });

  it('cold, warm and none side by side per cache mode, with intervals', () => {
    const spec = temperatureChart(cellsOf(), 'throughput', 's');
    expect(spec.errorBars).toBe(true);
    expect(spec.categories).toEqual(['no cache', 'local (L1)', 'redis (L2)', 'hybrid (L1+L2)']);
    expect(spec.series.map((s) => s.label)).toEqual([
      'REST · k6 no cache', 'REST · k6 cold', 'REST · k6 warm', 'gRPC · k6 no cache', 'gRPC · k6 cold', 'gRPC · k6 warm',
    ]);
    expect(values(spec.series[0].data).slice(1)).toEqual([null, null, null]);
  });
});

describe('cache charts: colours', () => {
  it('no cache, cold and warm bars of one protocol and tool each have a colour of their own', () => {
    const spec = temperatureChart(cellsOf(), 'p50', 's');
    for (const wire of ['REST · k6', 'gRPC · k6']) {
      const colours = spec.series.filter((s) => s.label.startsWith(wire)).map((s) => protocolColour(s.protocol, s.shade));
      expect(new Set(colours).size, `${wire}: ${colours.join(', ')}`).toBe(3);
    }
  });
});

describe('latency of closed cells at many users is labelled as queueing included, as the Overview labels it', () => {
  const crowded = cellsOf(A, { concurrency: 50 });
  const one = cellsOf(A, { concurrency: 1 });
  const charts: [string, (cells: Cell[]) => ChartSpec][] = [
    ['concurrency p50', (cells) => concurrencyChart(cells, 'warm', CONCURRENCY_METRICS[0], 's')],
    ['concurrency p95', (cells) => concurrencyChart(cells, 'warm', CONCURRENCY_METRICS[1], 's')],
    ['concurrency p99', (cells) => concurrencyChart(cells, 'warm', CONCURRENCY_METRICS[2], 's')],
    ['cache p50', (cells) => temperatureChart(cells, 'p50', 's')],
    ['compare p50', (cells) => compareChart(pairCells(cells, cells).pairs, 'p50', 's')],
    ['spectrum', (cells) => spectrumChart(cells, 's')],
  ];
  it.each(charts)('%s', (_, chart) => {
    const spec = chart(crowded);
    expect(spec.title).toMatch(/queueing included/);
    expect(spec.yTitle).toMatch(/queueing included/);
    expect(spec.notes?.[0]).toMatch(/^At 50 users a closed cell .*queueing/);
    const alone = chart(one);
    expect(alone.title).not.toMatch(/queueing/);
    expect(alone.yTitle).not.toMatch(/queueing/);
    expect(alone.notes?.some((n) => /queueing/.test(n)) ?? false).toBe(false);
  });

  it('not throughput', () => {
    expect(concurrencyChart(crowded, 'warm', CONCURRENCY_METRICS[3], 's').yTitle).not.toMatch(/queueing/);
    expect(temperatureChart(crowded, 'throughput', 's').yTitle).not.toMatch(/queueing/);
    expect(compareChart(pairCells(crowded, crowded).pairs, 'throughput', 's').yTitle).not.toMatch(/queueing/);
  });
});

describe('compare runs', () => {
  it('pairs cells by what they measured', () => {
    const { pairs, onlyA, onlyB } = pairCells(A.cells, B.cells);
    expect(pairs).toHaveLength(38);
    expect(onlyA).toBe(1);
    expect(onlyB).toBe(0);
  });

  it('pairs no cell whose key two cells of its run share, nor cells with other connections', () => {
    // 500 users on 500 connections (A) and over 50 (B) are other measurements; a key shared in B
    // once kept B's last cell of it, so A's cell was compared with whichever came last
    const one = cell({ concurrency: 500, connections: 500 });
    const multiplexed = cell({ concurrency: 500, connections: 50 });
    expect(pairCells([one], [multiplexed]).pairs).toHaveLength(0);
    expect(pairCells([one], [cell({ concurrency: 500, connections: 500 }), cell({ concurrency: 500, connections: 500 })]))
      .toMatchObject({ pairs: [], onlyA: 1, onlyB: 2 });
  });

  it('plots A and B side by side, each with its own interval; the table says how the intervals lie', () => {
    const spec = compareChart(pairCells(cellsOf(A), cellsOf(B)).pairs, 'p50', 's');
    expect(spec.errorBars).toBe(true);
    expect(spec.series.map((s) => s.label)).toEqual(['REST · k6 · run A', 'REST · k6 · run B', 'gRPC · k6 · run A', 'gRPC · k6 · run B']);
    const row = spec.table.rows.find((r) => r[0] === 'gRPC' && r[2] === 'hybrid' && r[3] === 'warm')!;
    const a = byId('grpc-k6-GetGroup-hybrid-warm-c50').summary.latencyIntervalMs.p50;
    expect(row.slice(4, 7)).toEqual([a.value, a.low, a.high]);
    expect(['overlap', 'B lower', 'B higher']).toContain(row[10]);
  });

  it('calls the run that started first A (before), whichever was chosen at the top', () => {
    expect(beforeAfter(A, B)).toEqual([A, B]);
    expect(beforeAfter(B, A)).toEqual([A, B]);
    expect(beforeAfter(B, { ...A, startedAt: B.startedAt })[0]).toBe(B);
  });

  it('shows the cell the Overview shows for the same selection, open model included', () => {
    for (const patch of [{}, { model: 'open' as const }, { model: 'open' as const, rate: 8000 }]) {
      const overview = latencyByCacheState(cellsOf(A, patch), 's').table.rows;
      const compare = compareChart(pairCells(cellsOf(A, patch), cellsOf(B, patch)).pairs, 'p50', 's').table.rows;
      const key = (r: unknown[]) => r.slice(0, 4).join('|');
      for (const row of compare) {
        const same = overview.find((o) => key(o) === key(row))!;
        expect(row.slice(4, 7), `${JSON.stringify(patch)} ${key(row)}`).toEqual(same.slice(4, 7));
      }
    }
  });

  it('compares intervals', () => {
    expect(intervalsCompare(iv(1, 0.9, 1.1), iv(1.05, 1, 1.2))).toBe('overlap');
    expect(intervalsCompare(iv(1, 0.9, 1.1), iv(0.7, 0.6, 0.8))).toBe('B lower');
    expect(intervalsCompare(iv(1, 0.9, 1.1), iv(2, 1.5, 2.5))).toBe('B higher');
    expect(intervalsCompare(iv(null), iv(1))).toBeNull();
  });

  it('declares no difference where either cell has no interval (sweep cells): the comparison is undecided', () => {
    expect(intervalsCompare(iv(1), iv(2))).toBe('no interval');
    expect(intervalsCompare(iv(1), iv(1))).toBe('no interval');
    expect(intervalsCompare(iv(1, 0.9, 1.1), iv(2))).toBe('no interval');
    expect(intervalsCompare(iv(2), iv(1, 0.9, 1.1))).toBe('no interval');
    expect(intervalsCompare(iv(1, 0.9, null), iv(2, 1.9, 2.1))).toBe('no interval');
  });

  it('lists environment fields of both runs, nested ones dotted, and flags differences', () => {
    const rows = environmentRows(A.environment, B.environment);
    expect(rows.find((r) => r.key === 'jdk')).toEqual({ key: 'jdk', a: 'OpenJDK 21.0.9', b: 'OpenJDK 21.0.10', differs: true });
    expect(rows.find((r) => r.key === 'cores')).toMatchObject({ differs: false });
    expect(rows.find((r) => r.key === 'memoryBytes')).toMatchObject({ a: '25.8 GB' });
    expect(rows.find((r) => r.key === 'placement.generator')).toMatchObject({ a: '1', differs: false });
    expect(rows.find((r) => r.key === 'jvm.options')).toMatchObject({ a: '-Xms512m -Xmx512m -XX:ActiveProcessorCount=1' });
    expect(rows.find((r) => r.key === 'jvm.heapMaxBytes')).toMatchObject({ a: '537 MB' });
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
      latencyByCacheState([], 's'), throughputByCacheState([], 's'), payloadSize([], 's'),
      concurrencyChart([], 'warm', CONCURRENCY_METRICS[0], 's'), hitRatioChart([], 's'), cpuPerRequestChart([], 's'),
      temperatureChart([], 'p50', 's'), compareChart([], 'p50', 's'), payloadScalingChart([], 's'), spectrumChart([], 's'),
      latencyVsThroughputChart([], 's'),
    ];
    for (const s of specs) {
      expect(s.series).toEqual([]);
      expect(s.table.rows).toEqual([]);
    }
  });
});
