// The per-cell and per-window tables (Cells & CPU, Over time) as plain data: the CSV exports and
// the tests read these; the components print the same figures compactly (intervals in brackets).
import type { CsvValue } from './csv';
import type { ColumnFormat } from './format';
import { windowName } from './charts/timeline';
import { allFlags, excludes, flagReason, flagsText } from './transforms';
import type { Cell, Interval } from './types';

export interface PlainTable {
  columns: string[];
  formats: ColumnFormat[];
  rows: CsvValue[][];
  rowFlags: (string | null)[];
}

const iv = (i: Interval): CsvValue[] => [i.value, i.low, i.high];

/** The kinds of a service's threads the bench splits its CPU by (loadtest/tandem_bench/cpu.py THREAD_KINDS). */
export const THREAD_KINDS = ['carrier', 'io', 'redis', 'gc', 'jit', 'other'] as const;

/** Every cell of a run: what it ran, its figures with intervals, its costs and its flags. */
export function cellsTable(cells: Cell[]): PlainTable {
  const rows: CsvValue[][] = [];
  const rowFlags: (string | null)[] = [];
  for (const c of cells) {
    const s = c.summary;
    const flag = flagReason(c);
    // the export keeps every reason; the greyed row's tooltip the short form
    rows.push([
      c.id, c.role, c.protocol, c.tool, c.transport, c.tls, c.operation, c.pageSize, c.cacheMode, c.temperature,
      c.model, c.concurrency, c.connections, c.targetRate,
      ...iv(s.throughputRps), ...iv(s.latencyIntervalMs.p50), ...iv(s.latencyIntervalMs.p99),
      // the service's own clock: beside a queueing p50, the time a request spent inside it
      s.serviceLatencyMs?.p50 ?? null, s.serviceLatencyMs?.p99 ?? null,
      s.errorRate, s.samples,
      ...iv(s.cpuUsPerRequest.server), s.cpuUsPerRequest.service, s.cpuUsPerRequest.mariadb, s.cpuUsPerRequest.redis,
      // absent in runs from before the bench recorded them
      s.serviceThreads?.systemShare ?? null, s.serviceThreads?.contextSwitchesPerRequest ?? null,
      ...THREAD_KINDS.map((k) => s.serviceThreads?.cpuUsPerRequestByKind?.[k] ?? null),
      s.cpuUsPerRequest.generator, s.generatorCores, s.droppedIterations, s.achievedRate, c.headlineEligible, allFlags(c),
    ]);
    rowFlags.push(flag);
  }
  const T = 'text' as const;
  const I = 'int' as const;
  const N = 'num' as const;
  return {
    columns: [
      'Cell', 'Role', 'Protocol', 'Tool', 'Transport', 'TLS', 'Operation', 'Page size', 'Cache mode', 'Temperature',
      'Model', 'Users', 'Connections', 'Target rate (/s)',
      'Throughput (req/s)', 'Throughput low', 'Throughput high', 'p50 (ms)', 'p50 low', 'p50 high', 'p99 (ms)', 'p99 low', 'p99 high',
      'In service p50 (ms)', 'In service p99 (ms)', 'Error rate', 'Samples',
      'Server CPU (µs/request)', 'Server CPU low', 'Server CPU high', 'Service CPU (µs/request)', 'MariaDB CPU (µs/request)', 'Redis CPU (µs/request)',
      'Service system CPU share', 'Service context switches per request',
      ...THREAD_KINDS.map((k) => `Service ${k} threads CPU (µs/request)`), 'Generator CPU (µs/request)', 'Generator cores', 'Dropped arrivals', 'Achieved rate (/s)', 'Headline eligible', 'Flags',
    ],
    formats: [
      T, T, T, T, T, T, T, I, T, T, T, I, I, N,
      N, N, N, N, N, N, N, N, N, N, N, 'fraction', I,
      N, N, N, N, N, N, 'fraction', N, ...THREAD_KINDS.map(() => N), N, N, I, N, T, T,
    ],
    rows,
    rowFlags,
  };
}

/** The windows of one cell, in run order. */
export function windowsTable(cell: Cell): PlainTable {
  const rows: CsvValue[][] = [];
  const rowFlags: (string | null)[] = [];
  for (const w of [...cell.windows].sort((a, b) => a.order - b.order)) {
    // every reason in the Flags column; greyed only as a cell is (isFlagged): not for informational flags alone
    const reasons = flagsText(w.flags);
    const flag = excludes(w.flags) ? reasons : null;
    rows.push([
      windowName(w), w.order, w.seconds, w.requests, w.ok, w.errors, w.throughputRps,
      w.latencyMs.p50, w.latencyMs.p99, w.latencyMs.max, w.droppedIterations, w.achievedRate, w.generatorCores,
      w.jvm.gcPauseMs, w.hitRatio.overall, reasons,
    ]);
    rowFlags.push(flag);
  }
  const I = 'int' as const;
  const N = 'num' as const;
  return {
    columns: [
      // the window as the flag reasons name it, from 1 (run.json's start and round count from 0)
      'Window', 'Order', 'Seconds (s)', 'Requests', 'OK', 'Errors', 'Throughput (req/s)',
      'p50 (ms)', 'p99 (ms)', 'max (ms)', 'Dropped arrivals', 'Achieved rate (/s)', 'Generator cores',
      'GC pauses (ms)', 'Hit ratio', 'Flags',
    ],
    formats: ['text', I, N, I, I, I, N, N, N, N, I, N, N, N, 'fraction', 'text'],
    rows,
    rowFlags,
  };
}
