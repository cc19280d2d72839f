import { describe, expect, it } from 'vitest';
import {
  cacheStateLabel,
  cacheStates,
  cellKey,
  describeFilters,
  allFlags,
  estimate,
  fitValue,
  flagReason,
  keptFlags,
  flagsText,
  INFORMATIONAL_FLAGS,
  isFlagged,
  isTls,
  metrics,
  pickCell,
  resolveFilters,
  isDefaultBody,
  selectCells,
  seriesIds,
  toolLabel,
} from '../src/data/transforms';
import { pairCells } from '../src/data/charts/compare';
import { protocolLabel, seriesName } from '../src/data/style';
import { DEFAULT_FILTERS } from '../src/data/urlState';
import type { Cell } from '../src/data/types';
import { cell, iv, readRun, RUN_A, RUN_B, summary } from './helpers';

const A = readRun(RUN_A);

describe('metrics: figures as run.json holds them', () => {
  it('p50 and p99 are pooled over the windows, with their intervals; p95 is pooled too, without one', () => {
    const c = A.cells[0];
    expect(metrics.p50(c)).toBe(c.summary.latencyIntervalMs.p50);
    expect(metrics.p99(c)).toBe(c.summary.latencyIntervalMs.p99);
    expect(metrics.throughput(c)).toBe(c.summary.throughputRps);
    expect(metrics.serverCpu(c)).toBe(c.summary.cpuUsPerRequest.server);
    expect(metrics.p95(c)).toEqual(iv(c.summary.latencyMs.p95));
    expect(metrics.hitOverall(c)).toEqual(iv(c.summary.hitRatio.overall));
  });

  it('fitValue draws A + B·N', () => {
    expect(fitValue({ a: 0.5, b: 0.02 }, 100)).toBeCloseTo(2.5, 10);
  });
});

describe('flags', () => {
  const ghz = A.cells.find((c) => c.tool === 'ghz')!;
  const hello = A.cells.find((c) => c.id === 'rest-k6-Hello-none-none-c50')!;

  it('a cell with a flag that excludes windows, or left out of the headlines, is flagged, with the bench’s reasons', () => {
    expect(isFlagged(ghz)).toBe(true);
    // a flag repeated in every window is given once, with the count of the others
    expect(flagReason(ghz)).toMatch(/^start 1 round 1: generator used 9\d % of its 1 core \(≥ 95 %\) \(and 3 more windows flagged generator-saturated\)$/);
    expect(allFlags(ghz)).toMatch(/^start 1 round 1: generator used 9\d % of its 1 core \(≥ 95 %\); start 1 round 2: .*; start 2 round 2: /);
    expect(flagReason(hello)).toBe('start 1 round 2: processes outside the bench used 0.31 cores (> 0.2); start 1 round 2: generator used 97 % of its 1 core (≥ 95 %)');
    expect(isFlagged(hello)).toBe(true);
    // other-cpu, few-samples and jit are shown, not greyed: the bench keeps such windows in the
    // headline. (flagReason, which every view greys by, gave their reasons, so they were greyed.)
    const informational = cell({ flags: [{ code: 'other-cpu', reason: 'o' }, { code: 'few-samples', reason: 'f' }, { code: 'jit', reason: 'j' }] });
    expect(isFlagged(informational)).toBe(false);
    expect(flagReason(informational)).toBeNull();
    expect(allFlags(informational)).toBe('o; f; j');
    // shown: the Cells table printed nothing for such a cell, where the end-of-run text's flags column names them
    expect(keptFlags(informational)).toBe('o; f; j');
    expect(keptFlags(hello)).toBeNull(); // greyed: flagReason already names every flag
    expect(keptFlags(A.cells[0])).toBeNull();
    expect(isFlagged(A.cells[0])).toBe(false);
    expect(flagReason(A.cells[0])).toBeNull();
    expect(flagReason(cell({ headlineEligible: false }))).toBe('left out of the headline ratios by the bench');
    expect(flagsText([])).toBeNull();
    expect(flagsText([{ code: 'errors', reason: 'a' }, { code: 'jit', reason: 'b' }])).toBe('a; b');
  });

  it('the fixture keeps a cell in the headline by the bench’s rule: while any window has no excluding flag', () => {
    // assemble.py: headlineEligible = bool(run.eligible()), the windows without a flag but other-cpu, few-samples or jit
    for (const run of [A, readRun(RUN_B)]) {
      for (const c of run.cells) {
        expect(c.headlineEligible, c.id).toBe(c.windows.some((w) => w.flags.every((f) => INFORMATIONAL_FLAGS.has(f.code))));
      }
    }
    // a cell with one flagged window of four stays in; one with every window flagged is left out
    expect(hello.headlineEligible).toBe(true);
    expect(ghz.headlineEligible).toBe(false);
  });

  it('the cell that stands for a group is an unflagged one, then the one with most samples', () => {
    const flagged = cell({ flags: [{ code: 'errors', reason: 'errors' }], headlineEligible: false, summary: summary(1, { samples: 99999 }) });
    const small = cell({ summary: summary(2, { samples: 10 }) });
    const big = cell({ summary: summary(3, { samples: 500 }) });
    expect(pickCell([flagged, small, big])).toBe(big);
    expect(pickCell([flagged])).toBe(flagged);
    expect(pickCell([])).toBeNull();
    const e = estimate([flagged, small], metrics.p50);
    expect(e).toMatchObject({ value: 2, low: 1.8, high: 2.2, cell: small });
    expect(estimate([], metrics.p50)).toEqual({ value: null, low: null, high: null, cell: null });
  });
});

describe('grouping', () => {
  const cells = [
    cell({ protocol: 'grpc', tool: 'ghz', cacheMode: 'hybrid', temperature: 'warm' }),
    cell({ protocol: 'rest', cacheMode: 'local', temperature: 'cold' }),
    cell({ protocol: 'grpc', cacheMode: 'none', temperature: 'none' }),
    cell({ protocol: 'rest', tool: 'h2load', cacheMode: 'local', temperature: 'warm' }),
    cell({ protocol: 'rest', operation: 'Hello', cacheMode: 'hybrid', temperature: 'none' }),
  ];

  it('orders series REST first, then k6, ghz, h2load, oha', () => {
    expect(seriesIds(cells)).toEqual([
      { protocol: 'rest', tool: 'k6', tls: false },
      { protocol: 'rest', tool: 'h2load', tls: false },
      { protocol: 'grpc', tool: 'k6', tls: false },
      { protocol: 'grpc', tool: 'ghz', tls: false },
    ]);
  });

  it('orders cache states no cache, then each mode cold, warm (Hello: not used)', () => {
    expect(cacheStates(cells).map(cacheStateLabel)).toEqual(['no cache', 'local · cold', 'local · warm', 'hybrid (not used)', 'hybrid · warm']);
  });

  it('keys a cell by what it measured, not its id', () => {
    expect(cellKey(cell({}))).toBe(cellKey(cell({})));
    expect(cellKey(cell({ concurrency: 1 }))).not.toBe(cellKey(cell({ concurrency: 50 })));
    expect(cellKey(cell({ model: 'open', targetRate: 1000 }))).not.toBe(cellKey(cell({ model: 'open', targetRate: 2000 })));
    // 500 users over 50 connections, a revalidating client, a Protobuf body: other measurements
    expect(cellKey(cell({ concurrency: 500, connections: 50 }))).not.toBe(cellKey(cell({ concurrency: 500, connections: 500 })));
    expect(cellKey(cell({ revalidate: true }))).not.toBe(cellKey(cell({})));
    expect(cellKey(cell({ encoding: 'protobuf' }))).not.toBe(cellKey(cell({})));
  });

  it('keys a cell of an older run, which names no body, as the same cell with the wire’s default body', () => {
    // a run from before the bench recorded encoding, http and compression (run B) paired with none of
    // a newer run's identical cells: the Compare view said "0 matched" over TLS
    const b = readRun(RUN_B).cells.filter(isTls);
    expect(b).not.toHaveLength(0);
    expect(b.every((c) => c.encoding === undefined && c.http === undefined && c.compression === undefined)).toBe(true);
    const newer = b.map((c) => ({
      ...c,
      id: `${c.id}-newer`,
      ...(c.protocol === 'rest'
        ? { encoding: 'json' as const, http: '1.1' as const, compression: 'identity' as const }
        : { encoding: 'protobuf' as const, http: '2' as const, compression: 'identity' as const }),
    }));
    expect(pairCells(b, newer).pairs).toHaveLength(b.length);
    expect(cellKey(cell({ protocol: 'grpc' }))).toBe(cellKey(cell({ protocol: 'grpc', encoding: 'protobuf', http: '2', compression: 'identity' })));
    // a body other than the default is still another measurement
    expect(cellKey(cell({ http: '2' }))).not.toBe(cellKey(cell({})));
    expect(cellKey(cell({ compression: 'gzip' }))).not.toBe(cellKey(cell({ compression: 'identity' })));
  });

  it('charts no cell that would stand for another: revalidating, multiplexed or overload cells', () => {
    const plain = cell({ cacheMode: 'hybrid', temperature: 'warm', concurrency: 50, connections: 50 });
    const r = resolveFilters([plain], DEFAULT_FILTERS);
    const others = [
      cell({ cacheMode: 'hybrid', temperature: 'warm', concurrency: 50, connections: 50, revalidate: true }),
      cell({ cacheMode: 'hybrid', temperature: 'warm', concurrency: 50, connections: 5 }),
      cell({ cacheMode: 'hybrid', temperature: 'warm', concurrency: 50, connections: 50,
        overload: { pair: 'p', step: 200, timeoutSeconds: 1, settleSeconds: 1 } }),
    ];
    expect(selectCells([plain, ...others], r)).toEqual([plain]);
  });

  it('names a tool by the wires it drove', () => {
    expect(toolLabel('k6', A.cells)).toBe('k6 (REST + gRPC)');
    expect(toolLabel('ghz', A.cells)).toBe('ghz (gRPC)');
    expect(toolLabel('oha', A.cells)).toBe('oha (REST)');
    expect(toolLabel('h2load', A.cells)).toBe('h2load');
  });
});

describe('the default tool', () => {
  it('shows both wires when no tool drove both: a run of native generators (hotpath, protocols) charts REST and gRPC', () => {
    // results/20261202T055350Z-hotpath-974a617: h2load drove gRPC, oha REST, no k6 cell. Picking the first
    // tool charted gRPC alone in every view until the reader found the Tool filter.
    const cells = [
      cell({ protocol: 'grpc', tool: 'h2load', cacheMode: 'hybrid', temperature: 'warm', concurrency: 50, connections: 50 }),
      cell({ protocol: 'rest', tool: 'oha', cacheMode: 'hybrid', temperature: 'warm', concurrency: 50, connections: 50 }),
    ];
    const r = resolveFilters(cells, DEFAULT_FILTERS);
    expect(r.tool).toBe('all');
    expect(selectCells(cells, r).map((c) => c.protocol).sort()).toEqual(['grpc', 'rest']);
  });

  it('keeps a tool that drove both wires when the asked one is absent, and a tool the reader chose', () => {
    const cells = [
      cell({ protocol: 'grpc', tool: 'ghz' }),
      cell({ protocol: 'grpc', tool: 'h2load' }),
      cell({ protocol: 'rest', tool: 'h2load' }),
    ];
    expect(resolveFilters(cells, DEFAULT_FILTERS).tool).toBe('h2load');
    expect(resolveFilters(cells, { ...DEFAULT_FILTERS, tool: 'ghz' }).tool).toBe('ghz');
    expect(resolveFilters([cell({ protocol: 'grpc', tool: 'ghz' })], DEFAULT_FILTERS).tool).toBe('ghz');
  });
});

describe('the automatic choices: among the cells the charts show', () => {
  // results/20261203T172140Z-smoke-05d942e, cell for cell: the choices were made over every cell of
  // the transport, the non-default bodies, other tools' cells and the cold ones included
  const at = (over: Partial<Cell>) => cell({ cacheMode: 'hybrid', temperature: 'warm', ...over });
  const gzip = { encoding: 'protobuf' as const, http: '2' as const, compression: 'gzip' as const };
  const smoke = [
    at({ id: 'rest-k6-GetGroup-hybrid-warm-c1', concurrency: 1, connections: 1 }),
    at({ id: 'grpc-k6-GetGroup-hybrid-warm-c1', protocol: 'grpc', concurrency: 1, connections: 1 }),
    at({ id: 'rest-oha-GetGroup-hybrid-warm-c4', tool: 'oha', concurrency: 4, connections: 4 }),
    at({ id: 'grpc-h2load-GetGroup-hybrid-warm-c4', protocol: 'grpc', tool: 'h2load', concurrency: 4, connections: 4 }),
    at({ id: 'rest-oha-Hello-hybrid-none-c4', tool: 'oha', operation: 'Hello', temperature: 'none', concurrency: 4, connections: 4 }),
    at({ id: 'grpc-h2load-Hello-hybrid-none-c4', protocol: 'grpc', tool: 'h2load', operation: 'Hello', temperature: 'none', concurrency: 4, connections: 4 }),
    at({ id: 'rest-k6-GetGroup-hybrid-cold-c4', temperature: 'cold', concurrency: 4, connections: 4 }),
    at({ id: 'grpc-k6-ListGroups10-hybrid-cold-c4', protocol: 'grpc', operation: 'ListGroups', pageSize: 10, temperature: 'cold', concurrency: 4, connections: 4 }),
    at({ id: 'grpc-ghz-ListGroups10-hybrid-warm-c4', protocol: 'grpc', tool: 'ghz', operation: 'ListGroups', pageSize: 10, concurrency: 4, connections: 4 }),
    at({ id: 'rest-oha-GetGroup-hybrid-warm-c4-open200', tool: 'oha', model: 'open', targetRate: 200, concurrency: 4, connections: 4 }),
    at({ id: 'grpc-ghz-GetGroup-hybrid-warm-c4-open200', protocol: 'grpc', tool: 'ghz', model: 'open', targetRate: 200, concurrency: 4, connections: 4 }),
    at({ id: 'rest-oha-ListGroups50-hybrid-warm-c4-pb-h2-gz', tool: 'oha', operation: 'ListGroups', pageSize: 50, concurrency: 4, connections: 4, ...gzip }),
    at({ id: 'rest-h2load-ListGroups50-hybrid-warm-c4-pb-h2-gz', tool: 'h2load', operation: 'ListGroups', pageSize: 50, concurrency: 4, connections: 4, ...gzip }),
    at({ id: 'grpc-h2load-ListGroups50-hybrid-warm-c4-gz', protocol: 'grpc', tool: 'h2load', operation: 'ListGroups', pageSize: 50, concurrency: 4, connections: 4, ...gzip }),
    at({ id: 'grpc-ghz-ListGroups50-hybrid-warm-c4-gz', protocol: 'grpc', tool: 'ghz', operation: 'ListGroups', pageSize: 50, concurrency: 4, connections: 4, ...gzip }),
    at({ id: 'rest-k6-GetGroup-hybrid-warm-c1-tls', tls: true, concurrency: 1, connections: 1 }),
    at({ id: 'grpc-k6-GetGroup-hybrid-warm-c1-tls', protocol: 'grpc', tls: true, concurrency: 1, connections: 1 }),
    ...[100, 200].flatMap((rate) => [
      at({ id: `rest-oha-GetGroup-hybrid-warm-c8-open${rate}-sweep`, tool: 'oha', model: 'open', targetRate: rate, concurrency: 8, connections: 8 }),
      at({ id: `grpc-ghz-GetGroup-hybrid-warm-c8-open${rate}-sweep`, protocol: 'grpc', tool: 'ghz', model: 'open', targetRate: rate, concurrency: 8, connections: 8 }),
    ]),
  ];
  const shown = (patch: Partial<typeof DEFAULT_FILTERS> = {}) => selectCells(smoke, resolveFilters(smoke, { ...DEFAULT_FILTERS, ...patch })).map((c) => c.id);

  it('the landing page shows both wires: the concurrency where k6 drove REST and gRPC, not the one with most cells', () => {
    expect(resolveFilters(smoke, DEFAULT_FILTERS)).toMatchObject({ operation: 'GetGroup', tool: 'k6', concurrency: 1 });
    expect(shown()).toEqual(['rest-k6-GetGroup-hybrid-warm-c1', 'grpc-k6-GetGroup-hybrid-warm-c1']);
  });

  it('a page size whose cells all have other bodies is never the automatic one', () => {
    expect(resolveFilters(smoke, { ...DEFAULT_FILTERS, operation: 'ListGroups' }).pageSize).toBe(10);
    expect(shown({ operation: 'ListGroups' })).toEqual(['grpc-k6-ListGroups10-hybrid-cold-c4']);
  });

  it('the default tool gives way where k6 did not run the operation or the load model', () => {
    expect(resolveFilters(smoke, { ...DEFAULT_FILTERS, operation: 'Hello' }).tool).toBe('all');
    expect(shown({ operation: 'Hello' })).toEqual(['rest-oha-Hello-hybrid-none-c4', 'grpc-h2load-Hello-hybrid-none-c4']);
    expect(resolveFilters(smoke, { ...DEFAULT_FILTERS, model: 'open' })).toMatchObject({ tool: 'all', concurrency: 8, rate: 100 });
    expect(shown({ model: 'open' })).toEqual(['rest-oha-GetGroup-hybrid-warm-c8-open100-sweep', 'grpc-ghz-GetGroup-hybrid-warm-c8-open100-sweep']);
  });

  it('leaves out traced, multiplexed and overload cells, as the charts do', () => {
    const hidden = [
      at({ id: 'traced', concurrency: 50, connections: 50, tracing: true }),
      at({ id: 'traced-grpc', protocol: 'grpc', concurrency: 50, connections: 50, tracing: true }),
      at({ id: 'multiplexed', concurrency: 50, connections: 5 }),
      at({ id: 'multiplexed-grpc', protocol: 'grpc', concurrency: 50, connections: 5 }),
      at({ id: 'overload', concurrency: 50, connections: 50, overload: { pair: 'p', step: 200, timeoutSeconds: 1, settleSeconds: 1 } }),
    ];
    const cells = [...smoke, ...hidden];
    // 50 users had the most k6 cells, none of them charted
    expect(selectCells(cells, resolveFilters(cells, DEFAULT_FILTERS)).map((c) => c.id)).toEqual(['rest-k6-GetGroup-hybrid-warm-c1', 'grpc-k6-GetGroup-hybrid-warm-c1']);
  });

  it('keeps the reader’s own choices, shown or not', () => {
    expect(resolveFilters(smoke, { ...DEFAULT_FILTERS, concurrency: 4 }).concurrency).toBe(4);
    expect(resolveFilters(smoke, { ...DEFAULT_FILTERS, operation: 'ListGroups', pageSize: 50 }).pageSize).toBe(50);
    expect(resolveFilters(smoke, { ...DEFAULT_FILTERS, tool: 'oha' }).tool).toBe('oha');
    expect(resolveFilters(smoke, { ...DEFAULT_FILTERS, model: 'open', rate: 200 })).toMatchObject({ rate: 200 });
  });
});

describe('resolveFilters and selectCells on run A', () => {
  it('chooses GetGroup, closed model and the most common concurrency by default', () => {
    const r = resolveFilters(A.cells, DEFAULT_FILTERS);
    expect(r).toMatchObject({ operation: 'GetGroup', pageSize: null, concurrency: 50, tool: 'k6', model: 'closed', tls: false });
    expect(r.options.operations).toEqual(['GetGroup', 'ListGroups', 'Hello']);
    expect(r.options.tools).toEqual(['k6', 'ghz', 'oha']);
    expect(r.options.toolLabels).toEqual(['k6 (REST + gRPC)', 'ghz (gRPC)', 'oha (REST)']);
    expect(r.options.concurrencies).toEqual([1, 10, 50]);
    expect(r.options.models).toEqual(['closed', 'open']);
    expect(r.options.transports).toEqual([false, true]);
  });

  it('selects one cell per protocol, tool and cache state', () => {
    const r = resolveFilters(A.cells, DEFAULT_FILTERS);
    const cells = selectCells(A.cells, r);
    expect(cells).toHaveLength(2 * 5);
    expect(new Set(cells.map(cellKey)).size).toBe(cells.length);
    expect(selectCells(A.cells, { ...r, tool: 'all' })).toHaveLength(2 * 5 + 2);
    expect(selectCells(A.cells, r, ['concurrency'])).toHaveLength(2 * 5 + 2 * 2);
  });

  it('never charts a traced cell: its untraced twin is the service as deployed', () => {
    const r = resolveFilters(A.cells, DEFAULT_FILTERS);
    const selected = selectCells(A.cells, r);
    const traced = selected.map((c) => ({ ...c, id: `${c.id}-traced`, tracing: true }));
    expect(selectCells([...A.cells, ...traced], r)).toEqual(selected);
  });

  it('charts the default body only: a REST cell asked for Protobuf, HTTP/2 or gzip would stand in for the JSON one', () => {
    const r = resolveFilters(A.cells, DEFAULT_FILTERS);
    const json = selectCells(A.cells, r).find((c) => c.protocol === 'rest' && c.cacheMode === 'hybrid' && c.temperature === 'warm')!;
    // more samples than the JSON cell: pickCell would choose it were it selected
    const variants = (['protobuf', 'gzip', 'h2'] as const).map((v) => ({
      ...json,
      id: `${json.id}-${v}`,
      summary: { ...json.summary, samples: json.summary.samples * 10 },
      ...(v === 'protobuf' ? { encoding: 'protobuf' as const } : v === 'gzip' ? { compression: 'gzip' as const } : { http: '2' as const }),
    }));
    const chosen = selectCells([...A.cells, ...variants], r);
    expect(chosen.map((c) => c.id)).toContain(json.id);
    expect(chosen.filter((c) => variants.some((v) => v.id === c.id))).toEqual([]);
    expect(isDefaultBody({ protocol: 'grpc' })).toBe(true);
    expect(isDefaultBody({ protocol: 'grpc', compression: 'gzip' })).toBe(false);
    expect(isDefaultBody({ protocol: 'rest', encoding: 'json', http: '1.1', compression: 'identity' })).toBe(true);
  });

  it('picks the page size most cells have, and keeps a valid explicit choice', () => {
    expect(resolveFilters(A.cells, { ...DEFAULT_FILTERS, operation: 'ListGroups' })).toMatchObject({ pageSize: 1, concurrency: 10 });
    expect(resolveFilters(A.cells, { ...DEFAULT_FILTERS, operation: 'ListGroups', pageSize: 50 })).toMatchObject({ pageSize: 50 });
    expect(resolveFilters(A.cells, { ...DEFAULT_FILTERS, operation: 'ListGroups', pageSize: 999, concurrency: 7 })).toMatchObject({ pageSize: 1, concurrency: 10 });
  });

  it('the open model selects the sweep cells', () => {
    const r = resolveFilters(A.cells, { ...DEFAULT_FILTERS, model: 'open' });
    expect(r.concurrency).toBe(200);
    expect(selectCells(A.cells, r).every((c) => c.model === 'open' && c.sweep !== null)).toBe(true);
  });

  it('the open model selects one target rate: a cell per protocol and cache state, the rate named', () => {
    // each wire's sweep has one cell per rate at 200 users: without a rate they would stand for one bar
    const r = resolveFilters(A.cells, { ...DEFAULT_FILTERS, model: 'open' });
    expect(r.options.rates).toEqual([1000, 2000, 4000, 6000, 8000, 10000, 11000, 12000, 16000]);
    expect(r.rate).toBe(1000);
    const cells = selectCells(A.cells, r);
    expect(cells.map((c) => c.id)).toEqual(['rest-k6-GetGroup-hybrid-warm-c200-r1000', 'grpc-k6-GetGroup-hybrid-warm-c200-r1000']);
    expect(describeFilters(r)).toContain('open model at 1,000/s');
    const at = resolveFilters(A.cells, { ...DEFAULT_FILTERS, model: 'open', rate: 12000 });
    expect(selectCells(A.cells, at).map((c) => c.id)).toEqual(['grpc-k6-GetGroup-hybrid-warm-c200-r12000']);
    // a rate the selection does not have falls back; the closed model has none
    expect(resolveFilters(A.cells, { ...DEFAULT_FILTERS, model: 'open', rate: 7 }).rate).toBe(1000);
    expect(resolveFilters(A.cells, { ...DEFAULT_FILTERS, rate: 1000 })).toMatchObject({ rate: null, options: { rates: [] } });
  });
});

describe('the tls dimension', () => {
  it('selects plain cells by default and TLS cells when asked, never both', () => {
    const tls = resolveFilters(A.cells, { ...DEFAULT_FILTERS, tls: true });
    expect(tls.options.concurrencies).toEqual([1]);
    const cells = selectCells(A.cells, tls);
    expect(cells.map((c) => c.id)).toEqual(['rest-k6-GetGroup-hybrid-warm-c1-tls', 'grpc-k6-GetGroup-hybrid-warm-c1-tls']);
    expect(cells.every(isTls)).toBe(true);
    expect(describeFilters(tls)).toContain('over TLS');
  });

  it('falls back to the transport the run has', () => {
    const plain = A.cells.filter((c) => !isTls(c));
    const r = resolveFilters(plain, { ...DEFAULT_FILTERS, tls: true });
    expect(r.tls).toBe(false);
    expect(describeFilters(r)).not.toMatch(/TLS|plain/);
  });

  it('labels TLS series', () => {
    expect(seriesName('grpc', 'k6', true)).toBe('gRPC · k6 · TLS');
    expect(seriesName('rest', 'h2load')).toBe('REST · h2load');
    expect(protocolLabel('grpc', true)).toBe('gRPC · TLS');
  });
});
