// The Overview's charts (latency, throughput and payload size) and the Cells view's CPU per request
// (whole, and split by the service's threads): bars per cache state, one group per protocol and tool.
import type { CsvValue } from '../csv';
import { protocolLabel, seriesName } from '../style';
import { THREAD_KINDS } from '../tables';
import { cacheStateLabel, cacheStates, estimate, flagReason, metrics, pickCell, seriesIds, users, where, type Pick, type SeriesId } from '../transforms';
import type { Cell, Tool } from '../types';
import { bar, datum, flagNotes, keep, N, T, type ChartSpec, type SeriesSpec } from './spec';

interface Variant {
  name: string;
  pick: Pick;
  shade: number;
}

interface CacheStateBars {
  key: string;
  title: string;
  yTitle: string;
  unit: string;
  variants: Variant[];
  /** Extra table columns from the cell that stands for the bar group. */
  extra?: { column: string; value: (c: Cell) => CsvValue }[];
  /**
   * The variants are parts of a whole, stacked in one bar per protocol and tool, and have no
   * intervals (no error bars, no low and high columns).
   */
  stacked?: boolean;
  emptyText?: string;
}

/** Bars per cache state (no cache, then each mode cold and warm), a group per protocol × tool. */
function cacheStateBars(cells: Cell[], subtitle: string, o: CacheStateBars): ChartSpec {
  const states = cacheStates(cells);
  const series: SeriesSpec[] = [];
  const rows: CsvValue[][] = [];
  const rowFlags: (string | null)[] = [];
  for (const { protocol, tool, tls } of seriesIds(cells)) {
    const mine = where(cells, { protocol, tool });
    const perVariant = o.variants.map((v) => states.map((s) => estimate(where(mine, { ...s }), v.pick)));
    const group = seriesName(protocol, tool, tls);
    o.variants.forEach((v, i) => {
      const name = o.stacked ? `${group}: ${v.name}` : o.variants.length > 1 ? `${group} ${v.name}` : group;
      series.push({
        label: name, protocol, ...bar(tool, v.shade), ...(o.stacked ? { stack: group } : {}),
        data: perVariant[i].map((e) => datum(e)),
      });
    });
    states.forEach((s, j) => {
      const cell = pickCell(where(mine, { ...s }));
      if (!cell || perVariant.every((p) => p[j].value === null)) return;
      rows.push([
        protocolLabel(protocol, tls), tool, s.cacheMode, s.temperature,
        ...perVariant.flatMap((p) => (o.stacked ? [p[j].value] : [p[j].value, p[j].low, p[j].high])),
        ...(o.extra ?? []).map((x) => x.value(cell)),
        cell.id, flagReason(cell),
      ]);
      rowFlags.push(flagReason(cell));
    });
  }
  const kept = keep(series);
  return {
    key: o.key,
    title: o.title,
    subtitle,
    kind: 'bar',
    categories: states.map(cacheStateLabel),
    xTitle: 'Cache mode · temperature',
    yTitle: o.yTitle,
    unit: o.unit,
    errorBars: !o.stacked,
    ...(o.stacked ? { stacked: true } : {}),
    ...(o.emptyText ? { emptyText: o.emptyText } : {}),
    notes: flagNotes(kept),
    series: kept,
    table: {
      columns: [
        'Protocol', 'Tool', 'Cache mode', 'Temperature',
        ...o.variants.flatMap((v) => (o.stacked ? [`${v.name} (${o.unit})`] : [`${v.name} (${o.unit})`, `${v.name} low`, `${v.name} high`])),
        ...(o.extra ?? []).map((x) => x.column),
        'Cell', 'Flags',
      ],
      formats: [T, T, T, T, ...o.variants.flatMap(() => (o.stacked ? [N] : [N, N, N])), ...(o.extra ?? []).map(() => N), T, T],
      rows,
      rowFlags,
    },
  };
}

/**
 * The users of the closed cells at more than one user among `cells` ("50 users", "10–100 users"), or
 * null: such a cell keeps that many requests in flight, so its latency is mostly time queued behind
 * the others (Little's law: p50 ≈ users ÷ throughput), not the time one request takes.
 */
export function crowdedUsers(cells: { model: string; concurrency: number }[]): string | null {
  const levels = [...new Set(cells.filter((c) => c.model === 'closed' && c.concurrency > 1).map((c) => c.concurrency))]
    .sort((a, b) => a - b);
  if (levels.length === 0) return null;
  return levels.length === 1 ? users(levels[0]) : `${levels[0]}–${levels[levels.length - 1]} users`;
}

export const queueingNote = (who: string) =>
  `At ${who} a closed cell keeps that many requests in flight, so its latency is mostly queueing: its p50 is about ` +
  'users ÷ throughput (Little’s law), a measure of capacity, not the time one request takes. One-user and ' +
  'open-model cells measure latency; the Cells table’s “In service p50” is the service’s own time.';

/**
 * A latency chart's title, y axis and notes, labelled as the Overview's are where closed cells at
 * many users are among `cells`: their latency is mostly queueing, which the labels must not hide.
 */
export function queueingLabels(cells: { model: string; concurrency: number }[], title: string, yTitle: string, notes: string[] = []) {
  const crowded = crowdedUsers(cells);
  if (!crowded) return { title, yTitle, notes };
  return {
    title: `${title}: closed cells at ${crowded}, queueing included`,
    // 'Latency p50 (ms)' → 'Latency p50, queueing included (ms)'
    yTitle: yTitle.replace(/ \(([^)]*)\)$/, ', queueing included ($1)'),
    notes: [queueingNote(crowded), ...notes],
  };
}

export function latencyByCacheState(cells: Cell[], subtitle: string): ChartSpec {
  const spec = cacheStateBars(cells, subtitle, {
    key: 'latency-by-cache-state',
    title: 'Latency: no cache, cold and warm (p50 and p99, 95 % intervals)',
    yTitle: 'Latency (ms)',
    unit: 'ms',
    variants: [
      { name: 'p50', pick: metrics.p50, shade: 0 },
      { name: 'p99', pick: metrics.p99, shade: 0.4 },
    ],
  });
  return { ...spec, ...queueingLabels(cells, spec.title, spec.yTitle, spec.notes) };
}

export function throughputByCacheState(cells: Cell[], subtitle: string): ChartSpec {
  return cacheStateBars(cells, subtitle, {
    key: 'throughput-by-cache-state',
    title: 'Throughput: no cache, cold and warm (95 % intervals)',
    yTitle: 'Throughput (req/s)',
    unit: 'req/s',
    variants: [{ name: 'throughput', pick: metrics.throughput, shade: 0 }],
  });
}

/**
 * How each tool counts the bytes on the wire, where it counts them at all. They are different measures:
 * k6's counters against h2load's HTTP/2 traffic (received only) are not one figure for two wires, so
 * a chart sets them side by side only when one tool counted every series it draws.
 */
export const WIRE_COUNTERS: Record<Tool, string> = {
  k6: 'k6’s own data_sent and data_received counters, headers included',
  h2load: 'h2load’s traffic total: received only, HTTP/2 frames and HPACK-compressed headers included',
  oha: 'not counted (oha records no wire bytes)',
  ghz: 'not counted (ghz records no wire bytes)',
};

export function payloadSize(cells: Cell[], subtitle: string): ChartSpec {
  const wire: { name: string; pick: Pick }[] = [
    { name: 'Wire bytes sent / request', pick: metrics.wireSent },
    { name: 'Wire bytes received / request', pick: metrics.wireReceived },
  ];
  const picked: { id: SeriesId; cell: Cell; values: (number | null)[] }[] = [];
  for (const id of seriesIds(cells)) {
    // one cell's figures (they do not depend on the cache state): no cache where there is one
    const mine = where(cells, { protocol: id.protocol, tool: id.tool }).filter((c) => c.summary.bodyBytes !== null);
    const cell = pickCell(where(mine, { cacheMode: 'none' })) ?? pickCell(mine);
    if (!cell) continue;
    picked.push({ id, cell, values: [metrics.bodyBytes, ...wire.map((w) => w.pick)].map((p) => p(cell).value) });
  }
  // Body bytes are curl's on every wire, one measure. A wire category is drawn only when the series
  // with a figure in it were counted by one tool; otherwise it stays in the table, named per tool.
  const notes: string[] = [];
  const drawn = wire.map((w, i) => {
    const counters = [...new Set(picked.filter((p) => p.values[i + 1] !== null).map((p) => p.id.tool))];
    if (counters.length > 1) {
      notes.push(`${w.name} not drawn: ${counters.join(' and ')} count them differently (${counters
        .map((t) => `${t}: ${WIRE_COUNTERS[t]}`).join('; ')}); the table lists each.`);
    }
    return { ...w, counter: counters.length === 1 ? counters[0] : null, draw: counters.length === 1 };
  });
  const categories = ['Response body (curl)', ...drawn.filter((w) => w.draw).map((w) => `${w.name} (as ${w.counter} counts them)`)];
  const series: SeriesSpec[] = picked.map(({ id, cell, values }) => ({
    label: seriesName(id.protocol, id.tool, id.tls), protocol: id.protocol, ...bar(id.tool),
    data: values.filter((_, i) => i === 0 || drawn[i - 1].draw).map((y) => (y === null ? null : { y, cellId: cell.id })),
  }));
  const rows: CsvValue[][] = picked.map(({ id, cell, values }) =>
    [protocolLabel(id.protocol, id.tls), id.tool, ...values, WIRE_COUNTERS[id.tool], cell.id]);
  return {
    key: 'payload-size',
    title: 'Payload size per request',
    subtitle: `${subtitle} (the no-cache cell where there is one)`,
    kind: 'bar',
    categories,
    xTitle: 'What is counted',
    yTitle: 'Bytes per request (B)',
    unit: 'B',
    notes,
    series: keep(series),
    table: {
      columns: ['Protocol', 'Tool', 'Body (B)', 'Wire sent (B)', 'Wire received (B)', 'Wire bytes counted by', 'Cell'],
      formats: [T, T, N, N, N, T, T],
      rows,
    },
  };
}

/** The Cells view's CPU per request, drawn like the Overview's bars. */
export function cpuPerRequestChart(cells: Cell[], subtitle: string): ChartSpec {
  const cpu = (c: Cell) => c.summary.cpuUsPerRequest;
  return cacheStateBars(cells, subtitle, {
    key: 'cpu-per-request',
    title: 'Server CPU per request (service + MariaDB + Redis, 95 % intervals)',
    yTitle: 'Server CPU per request (µs)',
    unit: 'µs',
    variants: [{ name: 'server', pick: metrics.serverCpu, shade: 0 }],
    extra: [
      { column: 'service (µs)', value: (c) => cpu(c).service },
      // where the service's CPU went by thread (null in runs from before the bench split it)
      { column: 'service: requests\' code on the carriers (µs)', value: (c) => c.summary.serviceThreads?.cpuUsPerRequestByKind?.carrier ?? null },
      { column: 'service: I/O threads (µs)', value: (c) => c.summary.serviceThreads?.cpuUsPerRequestByKind?.io ?? null },
      { column: 'MariaDB (µs)', value: (c) => cpu(c).mariadb },
      { column: 'Redis (µs)', value: (c) => cpu(c).redis },
      { column: 'generator (µs)', value: (c) => cpu(c).generator },
      { column: 'generator cores', value: (c) => c.summary.generatorCores },
    ],
  });
}

/**
 * Whose threads the service's CPU per request went to: the carriers that run each request's own code,
 * the server's I/O threads, and the rest together (Lettuce's, the collector's, the compilers', others).
 */
const THREAD_PARTS: { name: string; kinds: readonly (typeof THREAD_KINDS)[number][]; shade: number }[] = [
  { name: 'carriers', kinds: ['carrier'], shade: 0 },
  { name: 'I/O threads', kinds: ['io'], shade: 0.45 },
  { name: 'other threads', kinds: ['redis', 'gc', 'jit', 'other'], shade: 0.75 },
];

/** A part of the service's CPU per request: the sum of its kinds of thread, where the run split it. */
function threadPart(kinds: readonly (typeof THREAD_KINDS)[number][]): Pick {
  return (c) => {
    const byKind = c.summary.serviceThreads?.cpuUsPerRequestByKind;
    return { value: byKind ? kinds.reduce((sum, k) => sum + byKind[k], 0) : null, low: null, high: null };
  };
}

/**
 * The Cells view's split of the service's own CPU per request by thread, a stacked bar per protocol
 * and tool in each cache state: where REST and gRPC differ (Tomcat runs a request's I/O on its
 * carrier, Netty on its event loops). The bench reads it per thread without intervals, so none are drawn.
 */
export function serviceCpuByThreadChart(cells: Cell[], subtitle: string): ChartSpec {
  // the bench reads each thread before and after the generator's whole run, the service's process
  // over the measured span only (first request to last answer): the parts' sum is not the service's
  // figure, above it in 13 of the 14 cells of results/20261202T055350Z-hotpath-974a617 (42.8 against
  // 42.2 µs), below it where threads ended during a window (they are left out)
  const span = 'the threads read over the generator’s whole run, the service’s own figure (in the table) over the measured span only: their sum differs from it a little either way';
  return cacheStateBars(cells, `${subtitle}; ${span}`, {
    key: 'service-cpu-by-thread',
    title: "The service's CPU per request by thread",
    yTitle: 'Service CPU per request (µs)',
    unit: 'µs',
    variants: THREAD_PARTS.map((part) => ({ name: part.name, pick: threadPart(part.kinds), shade: part.shade })),
    extra: [
      { column: 'service (µs)', value: (c) => c.summary.cpuUsPerRequest.service },
      ...THREAD_KINDS.map((k) => ({ column: `${k} (µs)`, value: (c: Cell) => c.summary.serviceThreads?.cpuUsPerRequestByKind?.[k] ?? null })),
    ],
    stacked: true,
    emptyText: "This run's cells do not split the service's CPU by thread (a bench from before it read each thread's CPU).",
  });
}
