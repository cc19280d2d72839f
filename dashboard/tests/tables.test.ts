import { describe, expect, it } from 'vitest';
import { toCsv } from '../src/data/csv';
import { cellsTable, windowsTable } from '../src/data/tables';
import { queueingNote } from '../src/data/charts/overview';
import { cell, readRun, RUN_A, RUN_B, summary } from './helpers';

const A = readRun(RUN_A);
// run B stands for a bench from before the service's CPU was split by thread
const B = readRun(RUN_B);
const col = (t: { columns: string[] }, name: string) => t.columns.indexOf(name);

describe('cells table', () => {
  const t = cellsTable(A.cells);

  it('one row per cell, a format per column', () => {
    expect(t.rows).toHaveLength(A.cells.length);
    expect(t.formats).toHaveLength(t.columns.length);
    for (const r of t.rows) expect(r).toHaveLength(t.columns.length);
  });

  it('shows dropped arrivals, generator cores and server CPU per request with its interval', () => {
    const open = t.rows.find((r) => r[0] === 'grpc-k6-GetGroup-hybrid-warm-c200-r16000')!;
    const c = A.cells.find((x) => x.id === open[0])!;
    expect(open[col(t, 'Dropped arrivals')]).toBe(c.summary.droppedIterations);
    expect(open[col(t, 'Dropped arrivals')]).toBeGreaterThan(0);
    expect(open[col(t, 'Achieved rate (/s)')]).toBe(c.summary.achievedRate);
    expect(open[col(t, 'Generator cores')]).toBe(c.summary.generatorCores);
    expect(open.slice(col(t, 'Server CPU (µs/request)'), col(t, 'Server CPU high') + 1)).toEqual([
      c.summary.cpuUsPerRequest.server.value, c.summary.cpuUsPerRequest.server.low, c.summary.cpuUsPerRequest.server.high,
    ]);
    const closed = t.rows.find((r) => r[0] === 'rest-k6-GetGroup-hybrid-warm-c50')!;
    expect(closed[col(t, 'Dropped arrivals')]).toBeNull();
  });

  it("shows the service's kernel share and context switches per request, empty for a run from before them", () => {
    const measured = A.cells[0].summary.serviceThreads!;
    const u = cellsTable([A.cells[0], B.cells[0]]);
    expect(u.rows[0][col(u, 'Service system CPU share')]).toBe(measured.systemShare);
    expect(u.rows[0][col(u, 'Service context switches per request')]).toBe(measured.contextSwitchesPerRequest);
    expect(u.rows[0][col(u, 'Service system CPU share')]).toBeGreaterThan(0);
    expect(u.formats[col(u, 'Service system CPU share')]).toBe('fraction');
    expect(u.rows[1][col(u, 'Service system CPU share')]).toBeNull();
    expect(u.rows[1][col(u, 'Service context switches per request')]).toBeNull();
  });

  it("shows the service's CPU per request by kind of thread, empty for a run from before it", () => {
    const byKind = A.cells[0].summary.serviceThreads!.cpuUsPerRequestByKind!;
    const u = cellsTable([A.cells[0], B.cells[0]]);
    expect(u.rows[0][col(u, 'Service carrier threads CPU (µs/request)')]).toBe(byKind.carrier);
    expect(u.rows[0][col(u, 'Service io threads CPU (µs/request)')]).toBe(byKind.io);
    expect(u.rows[0][col(u, 'Service other threads CPU (µs/request)')]).toBe(byKind.other);
    expect(byKind.carrier).toBeGreaterThan(0);
    expect(u.formats[col(u, 'Service gc threads CPU (µs/request)')]).toBe('num');
    expect(u.rows[1][col(u, 'Service carrier threads CPU (µs/request)')]).toBeNull();
  });

  it("shows the service's own p50 and p99 (the “in service” time the Overview's queueing note points to), empty for a run from before it", () => {
    const timed = cell({ summary: summary(5, { serviceLatencyMs: { p50: 0.4, p99: 2.5 } }) });
    const u = cellsTable([timed, A.cells[0]]);
    expect(u.rows[0][col(u, 'In service p50 (ms)')]).toBe(0.4);
    expect(u.rows[0][col(u, 'In service p99 (ms)')]).toBe(2.5);
    expect(u.formats[col(u, 'In service p50 (ms)')]).toBe('num');
    expect(u.rows[1][col(u, 'In service p50 (ms)')]).toBeNull();
    // the note names the column the table has
    const named = /the Cells table’s “([^”]+)”/.exec(queueingNote('50 users'))![1];
    expect(u.columns.some((c) => c.startsWith(named))).toBe(true);
  });

  it('greys flagged cells with the reason', () => {
    const i = t.rows.findIndex((r) => r[0] === 'grpc-ghz-GetGroup-hybrid-warm-c50');
    expect(t.rowFlags[i]).toMatch(/generator used 9\d % of its 1 core/);
    expect(t.rows[i][col(t, 'Headline eligible')]).toBe(false);
    expect(t.rowFlags.filter(Boolean)).toHaveLength(A.cells.filter((c) => c.flags.length > 0).length);
  });

  it('exports as CSV with the numbers as run.json holds them', () => {
    const csv = toCsv(t.columns, t.rows);
    expect(csv.split('\r\n')[0]).toMatch(/^Cell,Role,Protocol,Tool,Transport,TLS,/);
    expect(csv).toContain(String(A.cells[0].summary.throughputRps.value));
  });
});

describe('windows table', () => {
  it('the windows of a cell in run order, flagged ones greyed', () => {
    const hello = A.cells.find((c) => c.id === 'rest-k6-Hello-none-none-c50')!;
    const t = windowsTable(hello);
    expect(t.rows.map((r) => r[0])).toEqual(['start 1 · round 1', 'start 1 · round 2', 'start 2 · round 1', 'start 2 · round 2']);
    const orders = t.rows.map((r) => r[col(t, 'Order')] as number);
    expect([...orders].sort((a, b) => a - b)).toEqual(orders);
    expect(t.rowFlags).toEqual([null, 'processes outside the bench used 0.31 cores (> 0.2); generator used 97 % of its 1 core (≥ 95 %)', null, null]);
    expect(t.rows[0][col(t, 'Generator cores')]).toBe(hello.windows[0].generatorCores);
  });

  it('a window with informational flags only is not greyed, its reasons still in the Flags column', () => {
    // other-cpu, few-samples and jit: the bench keeps the window in the headline (INFORMATIONAL_FLAGS)
    const hello = A.cells.find((c) => c.id === 'rest-k6-Hello-none-none-c50')!;
    const reason = 'start 1 round 1: processes outside the bench used 0.25 cores (> 0.2)';
    const t = windowsTable({ ...hello, windows: hello.windows.map((w, i) => (i === 0 ? { ...w, flags: [{ code: 'other-cpu' as const, reason }] } : w)) });
    expect(t.rowFlags![0]).toBeNull();
    expect(t.rows[0][col(t, 'Flags')]).toBe(reason);
    expect(t.rowFlags![1]).toMatch(/generator used 97 %/);
  });
});
