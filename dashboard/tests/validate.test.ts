import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { olderBenchMessage, parseRun, validateIndex, validateRun } from '../src/data/validate';
import { FIXTURES, RUN_A, RUN_B, RUN_BROKEN, RUN_NEWER, RUN_OLDER, RUN_PARTIAL, rawRun, readText, runText } from './helpers';

describe('validateRun on the fixture runs', () => {
  it('accepts the schemaVersion 2 runs', () => {
    for (const id of [RUN_A, RUN_B]) {
      const r = parseRun(runText(id));
      expect(r.ok, r.ok ? '' : r.reason).toBe(true);
      if (r.ok) expect(r.value.cells.length).toBeGreaterThan(30);
    }
  });

  it('marks a schemaVersion 1 run as recorded by an older bench, with the message to re-run', () => {
    const r = parseRun(runText(RUN_OLDER));
    expect(r).toEqual({
      ok: false,
      reason: 'recorded by an older bench (schema 1): re-run make bench to see it',
      older: { schemaVersion: 1 },
    });
    expect(olderBenchMessage(1)).toBe('recorded by an older bench (schema 1): re-run make bench to see it');
  });

  it('reports a newer schema version as such', () => {
    expect(parseRun(runText(RUN_NEWER))).toEqual({
      ok: false,
      reason: 'written with schema version 3, newer than this dashboard reads (version 2); update the dashboard',
    });
  });

  it('reports truncated JSON as not valid JSON', () => {
    const r = parseRun(runText(RUN_BROKEN));
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toMatch(/^not valid JSON/);
  });

  it('names the path of a missing summary', () => {
    expect(parseRun(runText(RUN_PARTIAL))).toEqual({ ok: false, reason: '$.cells[3].summary: expected an object, missing' });
  });
});

describe('validateRun: the v2 shape, with clear messages', () => {
  const check = (mutate: (run: ReturnType<typeof rawRun>) => void) => {
    const run = rawRun();
    mutate(run);
    return validateRun(run);
  };

  it('rejects an empty object, an array, null and a schema version that is no integer', () => {
    expect(validateRun({})).toEqual({ ok: false, reason: '$.schemaVersion: expected 2, missing' });
    expect(validateRun([])).toMatchObject({ ok: false, reason: '$: expected an object, got []' });
    expect(validateRun(null)).toMatchObject({ ok: false });
    expect(check((r) => (r.schemaVersion = 0))).toEqual({ ok: false, reason: '$.schemaVersion: expected 2, got 0' });
  });

  it('needs a figure present even when it could not be measured (null, never omitted)', () => {
    expect(check((r) => delete r.cells[0].summary.generatorCores)).toEqual({
      ok: false,
      reason: '$.cells[0].summary.generatorCores: expected a number or null, missing',
    });
    expect(check((r) => (r.cells[0].summary.generatorCores = null)).ok).toBe(true);
    expect(check((r) => delete r.cells[2].windows[1].droppedIterations)).toEqual({
      ok: false,
      reason: '$.cells[2].windows[1].droppedIterations: expected a number or null, missing',
    });
  });

  it('checks intervals: numbers or null, low not above high, no bounds without a value', () => {
    expect(check((r) => (r.cells[1].summary.throughputRps = 1234.5))).toEqual({
      ok: false,
      reason: '$.cells[1].summary.throughputRps: expected an object, got 1234.5',
    });
    expect(check((r) => (r.cells[1].summary.latencyIntervalMs.p99.low = '3ms'))).toEqual({
      ok: false,
      reason: '$.cells[1].summary.latencyIntervalMs.p99.low: expected a number or null, got "3ms"',
    });
    expect(check((r) => Object.assign(r.cells[0].summary.cpuUsPerRequest.server, { low: 9, high: 8 }))).toEqual({
      ok: false,
      reason: '$.cells[0].summary.cpuUsPerRequest.server: low 9 is above high 8',
    });
    expect(check((r) => (r.cells[0].summary.throughputRps = { value: null, low: 1, high: 2 }))).toEqual({
      ok: false,
      reason: '$.cells[0].summary.throughputRps: an interval without a value',
    });
    expect(check((r) => (r.cells[0].summary.throughputRps = { value: 5, low: null, high: null })).ok).toBe(true);
  });

  it('checks enums, flags, windows and timelines', () => {
    expect(check((r) => (r.cells[0].protocol = 'soap'))).toEqual({ ok: false, reason: '$.cells[0].protocol: expected one of rest|grpc, got "soap"' });
    expect(check((r) => (r.cells[0].tool = 'wrk'))).toEqual({ ok: false, reason: '$.cells[0].tool: expected one of k6|ghz|h2load|oha, got "wrk"' });
    expect(check((r) => (r.cells[0].transport = 'h3'))).toEqual({ ok: false, reason: '$.cells[0].transport: expected one of http1|h2, got "h3"' });
    expect(check((r) => (r.cells[0].role = 'other'))).toMatchObject({ ok: false, reason: expect.stringMatching(/^\$\.cells\[0\]\.role: expected one of throughput\|latency/) });
    expect(check((r) => (r.cells[0].windows[0].flags = [{ code: 'errors' }]))).toEqual({
      ok: false,
      reason: '$.cells[0].windows[0].flags[0].reason: expected a non-empty string, missing',
    });
    expect(check((r) => (r.cells[0].windows[0].timeline[2].p99 = 'slow'))).toEqual({
      ok: false,
      reason: '$.cells[0].windows[0].timeline[2].p99: expected a number or null, got "slow"',
    });
    expect(check((r) => (r.cells[0].headlineEligible = 'yes'))).toEqual({ ok: false, reason: '$.cells[0].headlineEligible: expected true or false, got "yes"' });
  });

  it("checks the schema's rules across fields, naming the rule", () => {
    expect(check((r) => (r.cells[0].temperature = 'none'))).toEqual({
      ok: false,
      reason: '$.cells[0].cacheMode: expected "none", got "hybrid" (temperature none only without a cache (or for Hello))',
    });
    expect(check((r) => (r.cells[6].temperature = 'warm'))).toEqual({
      ok: false,
      reason: '$.cells[6].temperature: expected "none", got "warm" (no cache means no temperature)',
    });
    expect(check((r) => (r.cells[0].tool = 'ghz'))).toEqual({ ok: false, reason: '$.cells[0].protocol: expected "grpc", got "rest" (ghz drives gRPC only)' });
    expect(check((r) => Object.assign(r.cells[0], { model: 'open', targetRate: null }))).toEqual({
      ok: false,
      reason: '$.cells[0].targetRate: expected a number, got null (the open model has a target rate, the closed one none)',
    });
  });

  it('rejects a field the schema does not name, and a number below its minimum', () => {
    expect(check((r) => (r.cells[0].summary.p42 = 1))).toEqual({ ok: false, reason: '$.cells[0].summary.p42: a field run.json does not have (schema version 2)' });
    expect(check((r) => (r.cells[0].windows[0].seconds = -1))).toEqual({ ok: false, reason: '$.cells[0].windows[0].seconds: expected >= 0, got -1' });
  });

  it('checks the spectrum ascends within 0..100', () => {
    expect(check((r) => (r.cells[0].summary.spectrum[3].percentile = 1))).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/^\$\.cells\[0\]\.summary\.spectrum\[3\]\.percentile: 1 does not ascend/),
    });
    expect(check((r) => (r.cells[0].summary.spectrum.at(-1).percentile = 101))).toMatchObject({ ok: false, reason: expect.stringMatching(/percentile: expected <= 100, got 101$/) });
  });

  it('checks sweeps: points name cells of the run, knee object or null', () => {
    expect(check((r) => (r.sweeps[0].points[0].cellId = 'nope'))).toEqual({ ok: false, reason: '$.sweeps[0].points[0].cellId: no cell "nope" in $.cells' });
    expect(check((r) => delete r.sweeps[0].knee)).toEqual({ ok: false, reason: '$.sweeps[0].knee: expected null or an object, missing' });
    expect(check((r) => (r.sweeps[0].knee = 5))).toEqual({ ok: false, reason: '$.sweeps[0].knee: expected null or an object, got 5' });
    expect(check((r) => (r.sweeps[0].knee = null)).ok).toBe(true);
    expect(check((r) => delete r.sweeps)).toEqual({ ok: false, reason: '$.sweeps: expected an array, missing' });
  });

  it('checks headlines: verdicts, and number-or-null values; a missing reason is tolerated', () => {
    expect(check((r) => (r.headline.grpcOverRestP50Warm.verdict = 'maybe'))).toEqual({
      ok: false,
      reason: '$.headline.grpcOverRestP50Warm.verdict: expected one of finding|inconclusive|flagged|missing, got "maybe"',
    });
    expect(check((r) => (r.headline.grpcOverRestP50Warm = 0.83))).toEqual({ ok: false, reason: '$.headline.grpcOverRestP50Warm: expected an object, got 0.83' });
    expect(check((r) => (r.headline.tlsOverPlainP50Grpc.reason = null)).ok).toBe(true);
    expect(check((r) => (r.headline.grpcOverRestP50Warm.pairs[0].excluded = 0))).toMatchObject({ ok: false, reason: expect.stringMatching(/pairs\[0\]\.excluded: expected true or false/) });
  });

  it('rejects two cells with one id', () => {
    expect(check((r) => (r.cells[1].id = r.cells[0].id))).toEqual({ ok: false, reason: `$.cells[1].id: "${rawRun().cells[0].id}" is used by another cell too` });
  });

  it('checks the environment: every field present, null where it could not be read', () => {
    expect(check((r) => (r.environment.placement.method = 'cgroups'))).toEqual({
      ok: false,
      reason: '$.environment.placement.method: expected one of taskset|none, got "cgroups"',
    });
    expect(check((r) => delete r.environment.placement)).toEqual({ ok: false, reason: '$.environment.placement: expected an object, missing' });
    expect(check((r) => (r.environment.cores = null)).ok).toBe(true);
    // the services' CPU cap: absent in older runs, checked when present
    const cap = { cores: 0.4, method: 'cgroup-v1', periodMicros: 10000, quotaMicros: 4000, note: 'capped' };
    expect(check((r) => (r.environment.placement.serviceCpuQuota = cap)).ok).toBe(true);
    expect(check((r) => (r.environment.placement.serviceCpuQuota = { ...cap, method: 'cgroups' }))).toEqual({
      ok: false,
      reason: '$.environment.placement.serviceCpuQuota.method: expected one of cgroup-v2|cgroup-v1|none, got "cgroups"',
    });
  });
});

describe('validateIndex', () => {
  it('reads the fixture index', () => {
    const r = validateIndex(JSON.parse(readText(join(FIXTURES, 'index.json'))));
    expect(r.ok).toBe(true);
    if (r.ok) {
      expect(r.value.runs).toHaveLength(7);
      expect(r.value.runs[0]).toMatchObject({ runId: RUN_B, path: `${RUN_B}/run.json`, profile: 'quick' });
    }
  });

  it('reads index versions 1 and 2, rejects an entry without a path and a newer index', () => {
    expect(validateIndex({ schemaVersion: 2, runs: [] }).ok).toBe(true);
    expect(validateIndex({ schemaVersion: 1, runs: [{ runId: 'x' }] })).toEqual({ ok: false, reason: '$.runs[0].path: expected a non-empty string, missing' });
    expect(validateIndex({ schemaVersion: 3, runs: [] })).toMatchObject({ ok: false, reason: expect.stringMatching(/schema version 3/) });
  });
});
