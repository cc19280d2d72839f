import { describe, expect, it } from 'vitest';
import { formatCell } from '../src/data/format';
import { watchChart, watchRecords, watchTable } from '../src/data/charts/watch';
import type { Run } from '../src/data/types';
import { parseRun } from '../src/data/validate';
import { readRun, RUN_A, RUN_WATCH, runText } from './helpers';

/**
 * Two WatchGroup cells as results/20261202T034527Z-watch-47249f1 recorded them (its summaries; one
 * window each): the run has no other cells, so these are all it measured. The second has too few
 * changes for a p99 (1,000), which must read as missing, not as 0.
 */
function watchRun(): Run {
  const base = readRun(RUN_A);
  const record = (id: string, protocol: 'rest' | 'grpc', client: 'sse' | 'grpcurl', writeRate: number, summary: object) => ({
    id, protocol, client, cacheMode: 'hybrid', watchers: 4, writeRate, pauseMs: 200, durationSeconds: 60, starts: 2, repetitions: 1,
    windows: [{ start: 0, round: 0, order: 1, seconds: 60.2, changes: 1005, missed: 0, loadWrites: 0, achievedWriteRate: 0,
      latencyMs: { n: 1005, p50: 71.9, p99: 206.9, max: 378.3 }, fromRequestMs: { n: 1005, p50: 114.6, p99: 444.3, max: 855.6 }, errors: [] }],
    summary,
  });
  return {
    ...base,
    cells: [],
    watch: [
      record('rest-sse-WatchGroup-hybrid-c4-w200', 'rest', 'sse', 200, {
        changes: 1608, missed: 0, errors: 0, achievedWriteRate: 177.3,
        latencyMs: { n: 1608, p50: 126.4, p99: 334.2, max: 452.1 }, fromRequestMs: { n: 1608, p50: 187.2, p99: 420.4, max: 700 },
        windowP50Ms: { min: 125.8, max: 126.4 },
      }),
      record('grpc-grpcurl-WatchGroup-hybrid-c4-w200', 'grpc', 'grpcurl', 200, {
        changes: 600, missed: 2, errors: 1, achievedWriteRate: 200,
        latencyMs: { n: 600, p50: 65.4, p99: null, max: 296 }, fromRequestMs: { n: 600, p50: 90.9, p99: null, max: 310 },
        windowP50Ms: null,
      }),
    ],
  } as unknown as Run;
}

describe('the WatchGroup cells (a watch run has nothing else)', () => {
  it('lists every watch record with the figures the text report prints', () => {
    const run = watchRun();
    expect(watchRecords(run)).toHaveLength(2);
    const t = watchTable(watchRecords(run));
    const shown = t.rows.map((r) => r.map((v, i) => formatCell(v, t.formats[i])));
    const col = (name: string) => t.columns.indexOf(name);
    expect(shown[0][col('Wire')]).toBe('REST');
    expect(shown[0][col('Load writes asked (/s)')]).toBe('200');
    expect(shown[0][col('Load writes achieved (/s)')]).toBe('177');
    expect(shown[0][col('Changes')]).toBe('1,608');
    expect(shown[0][col('p50 (ms)')]).toBe('126');
    expect(shown[0][col('p99 (ms)')]).toBe('334');
    expect(shown[0][col('max (ms)')]).toBe('452');
    expect(shown[0][col('Window p50s (ms)')]).toBe('126–126');
    expect(shown[0][col('From request p50 (ms)')]).toBe('187');
    // too few changes for a p99: missing, never 0
    expect(shown[1][col('p99 (ms)')]).toBe('—');
    expect(shown[1][col('Missed')]).toBe('2');
    expect(shown[1][col('Errors')]).toBe('1');
    expect(shown[1][col('Window p50s (ms)')]).toBe('—');
    // a record that missed changes or failed is greyed, with why
    expect(t.rowFlags[0]).toBeNull();
    expect(t.rowFlags[1]).toMatch(/2 changes missed.*1 error/);
  });

  it('draws p50 and p99 per record in ms, with no bar where the bench has no figure', () => {
    const spec = watchChart(watchRecords(watchRun()));
    expect(spec.yTitle).toMatch(/ms/);
    expect(spec.unit).toBe('ms');
    expect(spec.categories).toHaveLength(2);
    const p99 = spec.series.find((s) => s.label === 'gRPC p99');
    expect(p99?.data[1] ?? null).toBeNull();
    expect(spec.notes?.join(' ')).toMatch(/no p99 — 600 changes, a p99 needs 1,000/);
  });

  it('reads the fixture watch run: valid, no cells, its four records', () => {
    const parsed = parseRun(runText(RUN_WATCH));
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.value.cells).toEqual([]);
    const t = watchTable(watchRecords(parsed.value));
    expect(t.rows.map((r) => formatCell(r[t.columns.indexOf('p99 (ms)')], 'num'))).toEqual(['247', '171', '—', '153']);
    expect(t.rowFlags.filter(Boolean)).toEqual(['3 changes missed, 1 error']);
  });

  it('is empty for a run without watches (and older runs, which lack the field)', () => {
    const run = readRun(RUN_A);
    expect(watchRecords({ ...run, watch: undefined } as Run)).toEqual([]);
  });
});
