// The Payload scaling view: cycle time against page size with the fitted A + B·N lines, and the
// response body's size against page size.
import type { CsvValue } from '../csv';
import { formatNumber, formatR2, formatValue } from '../format';
import { protocolLabel, seriesName } from '../style';
import { fitValue, flagReason, isTls, pickCell, seriesIds, where } from '../transforms';
import { CACHE_MODES, PROTOCOLS, TEMPERATURES, TOOLS, type Cell, type Fit } from '../types';
import { crowdedUsers, queueingNote } from './overview';
import { flagNotes, I, keep, line, N, stateName, T, type ChartSpec, type Datum, type SeriesSpec } from './spec';

export function fitLabel(f: Fit): string {
  const r2 = f.r2 === null ? '' : `, R² ${formatR2(f.r2)}`;
  return `${seriesName(f.protocol, f.tool, isTls(f))} · ${stateName(f)}: ${formatNumber(f.a)} + ${formatNumber(f.b)}·N ms${r2}`;
}

/** The fits drawn over their measured points; `cells` (the run's) tell which points the bench flagged. */
export function payloadScalingChart(fits: Fit[], subtitle: string, cells: Cell[] = []): ChartSpec {
  const series: SeriesSpec[] = [];
  const rows: CsvValue[][] = [];
  const rowFlags: (string | null)[] = [];
  const byId = new Map(cells.map((c) => [c.id, c]));
  const maxN = Math.max(1, ...fits.flatMap((f) => f.points.map((p) => p.pageSize)));
  const rank = (f: Fit) =>
    [PROTOCOLS.indexOf(f.protocol), TOOLS.indexOf(f.tool), CACHE_MODES.indexOf(f.cacheMode), TEMPERATURES.indexOf(f.temperature)];
  const ordered = [...fits].sort((a, b) => {
    const ra = rank(a);
    const rb = rank(b);
    return ra.map((x, i) => x - rb[i]).find((d) => d !== 0) ?? 0;
  });
  for (const f of ordered) {
    const xs = [...new Set([0, ...f.points.map((p) => p.pageSize), maxN])].sort((a, b) => a - b);
    const fitted: Datum[] = xs.map((x) => ({ x, y: fitValue(f, x) }));
    // fits_from_cells lists cellIds in the points' order
    const points: Datum[] = f.points.map((p, i) => {
      const c = byId.get(f.cellIds[i]);
      return { x: p.pageSize, y: p.latencyMs, flag: c ? flagReason(c) : null, cellId: f.cellIds[i] };
    });
    // the fit stands on its points: a flagged point flags the row
    const flagged = points.filter((d) => d.flag).map((d) => `N=${d.x}: ${d.flag}`).join('; ') || null;
    series.push({ label: fitLabel(f), protocol: f.protocol, cacheMode: f.cacheMode, ...line(f.tool), data: fitted, fitted: true });
    series.push({
      label: `${seriesName(f.protocol, f.tool, isTls(f))} · ${stateName(f)} measured p50`,
      partnerOf: fitLabel(f),
      protocol: f.protocol,
      cacheMode: f.cacheMode,
      ...line(f.tool),
      data: points,
      pointsOnly: true,
      hideInLegend: true,
    });
    rows.push([
      protocolLabel(f.protocol, isTls(f)), f.tool, f.cacheMode, f.temperature, f.a, f.b, f.r2,
      f.serverCpu?.a ?? null, f.serverCpu?.b ?? null, f.serverCpu?.r2 ?? null,
      f.points.map((p) => `N=${p.pageSize}: ${formatValue(p.latencyMs, 'ms')}`).join('; '), flagged,
    ]);
    rowFlags.push(flagged);
  }
  // the bench fits closed cells at many users (stats.fits_from_cells): their p50 is mostly queueing
  const crowded = crowdedUsers(fits.map((f) => ({ model: 'closed', concurrency: f.concurrency })));
  return {
    key: 'payload-scaling',
    title: 'Cycle time vs page size: closed-model p50 and fitted A + B·N',
    subtitle,
    kind: 'line',
    xPoint: { before: 'N = ', after: '' },
    xTitle: 'Page size N (rows per response)',
    yTitle: crowded ? 'Closed-model p50, queueing included (ms)' : 'Latency p50 (ms)',
    unit: 'ms',
    notes: [
      ...(crowded
        ? [`${queueingNote(crowded)} A and B are fitted to that p50: A is not a request’s fixed cost nor B its cost per ` +
          'row; the server CPU fit in the table (µs, µs/row) is what a request and a row cost the server.']
        : []),
      ...flagNotes(series),
    ],
    series,
    table: {
      columns: ['Protocol', 'Tool', 'Cache mode', 'Temperature', 'A (ms, of the closed-model p50)', 'B (ms/row, of that p50)',
        'R²', 'server CPU A (µs)', 'server CPU B (µs/row)', 'server CPU R²', 'Measured points', 'Flags'],
      formats: [T, T, T, T, N, N, 'r2', N, N, 'r2', T, T],
      rows,
      rowFlags,
    },
  };
}

export function bodyBytesByPageSize(cells: Cell[], subtitle: string): ChartSpec {
  const series: SeriesSpec[] = [];
  const rows: CsvValue[][] = [];
  const sizes = [...new Set(cells.flatMap((c) => (c.pageSize === null ? [] : [c.pageSize])))].sort((a, b) => a - b);
  for (const { protocol, tool, tls } of seriesIds(cells)) {
    const mine = where(cells, { protocol, tool });
    const points: Datum[] = [];
    for (const n of sizes) {
      const cell = pickCell(where(mine, { pageSize: n }).filter((c) => c.summary.bodyBytes !== null));
      if (!cell) continue;
      const s = cell.summary;
      points.push({ x: n, y: s.bodyBytes!, cellId: cell.id });
      rows.push([protocolLabel(protocol, tls), tool, n, s.bodyBytes, s.wireBytesSentPerRequest, s.wireBytesReceivedPerRequest, cell.id]);
    }
    series.push({ label: seriesName(protocol, tool, tls), protocol, cacheMode: 'none', ...line(tool), data: points });
  }
  return {
    key: 'body-bytes-by-page-size',
    title: 'Response body size vs page size',
    subtitle,
    kind: 'line',
    xPoint: { before: 'N = ', after: '' },
    xTitle: 'Page size N (rows per response)',
    yTitle: 'Response body (B)',
    unit: 'B',
    series: keep(series),
    table: {
      columns: ['Protocol', 'Tool', 'Page size', 'Body (B)', 'Wire sent (B)', 'Wire received (B)', 'Cell'],
      formats: [T, T, I, N, N, N, T],
      rows,
    },
  };
}
