import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Cell, Measurement, Run } from '../src/data/types';

const here = dirname(fileURLToPath(import.meta.url));
export const FIXTURES = join(here, '..', 'test-fixtures', 'results');
export const BENCH_FIXTURES = join(here, '..', '..', 'loadtest', 'tests', 'fixtures');

export function readText(path: string): string {
  return readFileSync(path, 'utf8');
}

export function readRun(runId: string): Run {
  return JSON.parse(readText(join(FIXTURES, runId, 'run.json'))) as Run;
}

export function measurement(p50: number, extra: Partial<Measurement> = {}): Measurement {
  return {
    requests: 1000,
    errors: 0,
    errorRate: 0,
    throughputRps: 1000 / p50,
    latencyMs: { mean: p50, p50, p90: p50 * 1.5, p95: p50 * 2, p99: p50 * 3, p999: p50 * 4, max: p50 * 5 },
    bodyBytes: 100,
    wireBytesSentPerRequest: 50,
    wireBytesReceivedPerRequest: 150,
    hitRatio: { l1: null, l2: null, overall: null },
    loadGenCpuSeconds: 1,
    loadGenCpuPercent: 10,
    droppedIterations: null,
    achievedRate: null,
    ...extra,
  };
}

let n = 0;
export function cell(over: Partial<Cell> & { p50?: number }): Cell {
  const { p50 = 1, ...rest } = over;
  const m = measurement(p50);
  return {
    id: `cell-${n++}`,
    protocol: 'rest',
    tool: 'k6',
    operation: 'GetGroup',
    pageSize: null,
    cacheMode: 'none',
    temperature: 'none',
    model: 'closed',
    concurrency: 10,
    runs: [m],
    summary: m,
    ...rest,
  };
}
