import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Cell, Interval, Run, Summary } from '../src/data/types';

const here = dirname(fileURLToPath(import.meta.url));
export const FIXTURES = join(here, '..', 'test-fixtures', 'results');

/** The fixture runs (test-fixtures/make-fixtures.mjs). */
export const RUN_A = '20261124T100000Z-quick-1111111';
export const RUN_B = '20261125T090000Z-quick-2222222';
export const RUN_NEWER = '20261123T070000Z-quick-b000000';
export const RUN_OLDER = '20261122T070000Z-quick-a262159';
export const RUN_BROKEN = '20261121T070000Z-quick-broken';
export const RUN_PARTIAL = '20261120T080000Z-partial';
export const RUN_WATCH = '20261119T060000Z-watch-3333333';

export function readText(path: string): string {
  return readFileSync(path, 'utf8');
}

export function runText(runId: string): string {
  return readText(join(FIXTURES, runId, 'run.json'));
}

export function readRun(runId: string): Run {
  return JSON.parse(runText(runId)) as Run;
}

/** A fresh, mutable copy of a fixture run as plain JSON (for breaking it in validation tests). */
export function rawRun(runId = RUN_A): any {
  return JSON.parse(runText(runId));
}

export const iv = (value: number | null, low: number | null = null, high: number | null = null): Interval => ({ value, low, high });

/** A summary around a p50 (ms): throughput 1000/p50 req/s, intervals ±10 %. */
export function summary(p50: number, extra: Partial<Summary> = {}): Summary {
  const tput = 1000 / p50;
  return {
    requests: 1000,
    ok: 1000,
    errors: 0,
    errorRate: 0,
    samples: 1000,
    throughputRps: iv(tput, tput * 0.9, tput * 1.1),
    latencyMs: { mean: p50, p50, p90: p50 * 1.5, p95: p50 * 2, p99: p50 * 3, p999: null, p9999: null, max: p50 * 5 },
    latencyIntervalMs: { p50: iv(p50, p50 * 0.9, p50 * 1.1), p99: iv(p50 * 3, p50 * 2.7, p50 * 3.3) },
    spectrum: [
      { percentile: 0, ms: p50 / 2 },
      { percentile: 50, ms: p50 },
      { percentile: 90, ms: p50 * 1.5 },
      { percentile: 99, ms: p50 * 3 },
    ],
    bodyBytes: 100,
    wireBytesSentPerRequest: 50,
    wireBytesReceivedPerRequest: 150,
    hitRatio: { l1: null, l2: null, overall: null },
    cpuUsPerRequest: { service: 80, mariadb: 10, redis: null, generator: 30, server: iv(90, 85, 95) },
    generatorCores: 0.3,
    jvm: { gcPauseMs: 5, jitMs: 100 },
    db: { rowsReadPerRequest: 1, queriesPerRequest: 1 },
    droppedIterations: null,
    achievedRate: null,
    ...extra,
  };
}

let n = 0;
export function cell(over: Partial<Cell> & { p50?: number } = {}): Cell {
  const { p50 = 1, ...rest } = over;
  return {
    id: `cell-${n++}`,
    protocol: 'rest',
    tool: 'k6',
    transport: 'http1',
    operation: 'GetGroup',
    pageSize: null,
    cacheMode: 'none',
    temperature: 'none',
    model: 'closed',
    concurrency: 10,
    connections: 10,
    targetRate: null,
    durationSeconds: 3,
    warmupSeconds: 1,
    repetitions: 2,
    starts: 2,
    tls: false,
    sweep: null,
    role: 'throughput',
    windows: [],
    summary: summary(p50),
    flags: [],
    headlineEligible: true,
    ...rest,
  };
}
