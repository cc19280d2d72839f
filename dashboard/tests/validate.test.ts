import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseRun, validateIndex, validateRun } from '../src/data/validate';
import { BENCH_FIXTURES, FIXTURES, readText } from './helpers';

const example = () => JSON.parse(readText(join(BENCH_FIXTURES, 'run-example.json')));

describe('validateRun on the bench fixtures (loadtest/tests/fixtures)', () => {
  it('accepts the example run', () => {
    const r = parseRun(readText(join(BENCH_FIXTURES, 'run-example.json')));
    expect(r.ok).toBe(true);
    if (r.ok) expect(r.value.cells.length).toBeGreaterThan(10);
  });

  it('reports truncated JSON as not valid JSON', () => {
    const r = parseRun(readText(join(BENCH_FIXTURES, 'run-malformed.json')));
    expect(r).toMatchObject({ ok: false });
    if (!r.ok) expect(r.reason).toMatch(/^not valid JSON/);
  });

  it('reports a newer schema version as such', () => {
    const r = parseRun(readText(join(BENCH_FIXTURES, 'run-newer-schema.json')));
    expect(r).toEqual({
      ok: false,
      reason: 'written with schema version 2, newer than this dashboard reads (version 1); update the dashboard',
    });
  });
});

describe('validateRun and the tls dimension', () => {
  it('accepts cells and fits with tls, and runs written before it without the field (plain)', () => {
    const run = example();
    expect(run.cells.some((c: { tls?: boolean }) => c.tls === true)).toBe(true);
    expect(validateRun(run).ok).toBe(true);
    for (const c of run.cells) delete c.tls;
    for (const f of run.fits) delete f.tls;
    expect(validateRun(run).ok).toBe(true);
  });

  it('rejects a tls that is not true or false', () => {
    const run = example();
    run.cells[3].tls = 'yes';
    expect(validateRun(run)).toEqual({ ok: false, reason: '$.cells[3].tls: expected true or false, got "yes"' });
    const other = example();
    other.fits[0].tls = 1;
    expect(validateRun(other)).toEqual({ ok: false, reason: '$.fits[0].tls: expected true or false, got 1' });
  });
});

describe('validateRun on partial or wrong files', () => {
  it('names the path of a missing summary', () => {
    const run = example();
    delete run.cells[2].summary;
    expect(validateRun(run)).toEqual({ ok: false, reason: '$.cells[2].summary: expected an object, missing' });
  });

  it('names a wrong enum value', () => {
    const run = example();
    run.cells[0].protocol = 'soap';
    expect(validateRun(run)).toEqual({ ok: false, reason: '$.cells[0].protocol: expected one of rest|grpc, got "soap"' });
  });

  it('rejects a string where a number belongs', () => {
    const run = example();
    run.cells[1].summary.latencyMs.p99 = '12ms';
    const r = validateRun(run);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toBe('$.cells[1].summary.latencyMs.p99: expected a number, got "12ms"');
  });

  it('accepts null latencies (no request succeeded) and null hit ratios', () => {
    const run = example();
    run.cells[0].summary.latencyMs.p50 = null;
    run.cells[0].summary.hitRatio = { l1: null, l2: null, overall: null };
    expect(validateRun(run).ok).toBe(true);
  });

  it('checks the temperature rules: none only without cache or for Hello', () => {
    const run = example();
    const i = run.cells.findIndex((c: { cacheMode: string; operation: string }) => c.cacheMode === 'hybrid' && c.operation === 'GetGroup');
    run.cells[i].temperature = 'none';
    expect(validateRun(run)).toMatchObject({ ok: false, reason: expect.stringMatching(/temperature: expected cold\|warm/) });
    const hello = example();
    expect(hello.cells.some((c: { operation: string; cacheMode: string; temperature: string }) => c.operation === 'Hello' && c.cacheMode !== 'none' && c.temperature === 'none')).toBe(true);
    expect(validateRun(hello).ok).toBe(true);
  });

  it('rejects an empty object, an array and null', () => {
    expect(validateRun({})).toEqual({ ok: false, reason: '$.schemaVersion: expected a number, missing' });
    expect(validateRun([])).toMatchObject({ ok: false, reason: '$: expected an object, got []' });
    expect(validateRun(null)).toMatchObject({ ok: false });
  });

  it('reports an old schema version as unexpected', () => {
    const run = example();
    run.schemaVersion = 0;
    expect(validateRun(run)).toEqual({ ok: false, reason: '$.schemaVersion: expected 1, got 0' });
  });
});

describe('validateIndex', () => {
  it('reads the fixture index', () => {
    const r = validateIndex(JSON.parse(readText(join(FIXTURES, 'index.json'))));
    expect(r.ok).toBe(true);
    if (r.ok) {
      expect(r.value.runs).toHaveLength(6);
      expect(r.value.runs[0]).toMatchObject({ runId: '20261125T090000Z-quick-2222222', path: '20261125T090000Z-quick-2222222/run.json', profile: 'quick' });
    }
  });

  it('rejects an entry without a path and a newer index', () => {
    expect(validateIndex({ schemaVersion: 1, runs: [{ runId: 'x' }] })).toEqual({ ok: false, reason: '$.runs[0].path: expected a non-empty string, missing' });
    expect(validateIndex({ schemaVersion: 3, runs: [] })).toMatchObject({ ok: false, reason: expect.stringMatching(/schema version 3/) });
  });
});
