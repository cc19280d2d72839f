import { ChartCard } from '../components/ChartCard';
import { DataTable } from '../components/DataTable';
import { timelineChart } from '../data/charts/timeline';
import { toCsv } from '../data/csv';
import { formatInterval } from '../data/format';
import { windowsTable } from '../data/tables';
import { flagReason, flagsSummary, selectCells } from '../data/transforms';
import { downloadText } from '../download';
import type { ViewProps } from './viewProps';

export function Timeline({ run, resolved, cellId, onCell }: ViewProps) {
  const cell = run.cells.find((c) => c.id === cellId) ?? selectCells(run.cells, resolved)[0] ?? run.cells[0];
  if (!cell) return <div className="notice">This run has no cells.</div>;
  const flag = flagReason(cell);
  const noted = flagsSummary(cell.flags);
  const windows = windowsTable(cell);
  return (
    <>
      <div className="filter-bar">
        <label className="filter">
          <span>Cell</span>
          <select name="cell" value={cell.id} onChange={(e) => onCell(e.target.value)}>
            {run.cells.map((c) => (
              <option key={c.id} value={c.id}>{c.id}{flagReason(c) ? ' (flagged)' : ''}</option>
            ))}
          </select>
        </label>
      </div>
      <p className="explain">
        Each window is one measured repetition ({cell.starts} service start{cell.starts === 1 ? '' : 's'} ×{' '}
        {cell.repetitions} round{cell.repetitions === 1 ? '' : 's'}); its timeline has one point per 250 ms slice, a slice's p99 only
        from 1,000 successful requests (its p50 from 20), the rule every percentile of the bench follows. This cell:
        throughput {formatInterval(cell.summary.throughputRps, 'req/s')}, p50 {formatInterval(cell.summary.latencyIntervalMs.p50, 'ms')},
        p99 {formatInterval(cell.summary.latencyIntervalMs.p99, 'ms')}.
      </p>
      {flag && (
        <p className="notice warn" data-testid="cell-flagged">
          {cell.headlineEligible
            ? 'Windows of this cell are flagged by the bench and left out of the headline ratios'
            : 'This cell is flagged by the bench and left out of the headline ratios'}: {flag}
        </p>
      )}
      {!flag && noted && (
        <p className="notice" data-testid="cell-noted">
          The bench noted (its headline ratios keep these windows): {noted}
        </p>
      )}
      <div className="grid">
        <ChartCard spec={timelineChart(cell, 'latency')} />
        <ChartCard spec={timelineChart(cell, 'rps')} />
        <section className="card wide" data-testid="windows-table">
          <header className="card-head">
            <div>
              <h3>Windows of {cell.id}</h3>
              <p className="subtitle">A greyed window is flagged; its reasons are in the Flags column.</p>
            </div>
            <div className="card-actions">
              <button type="button" onClick={() => downloadText(toCsv(windows.columns, windows.rows), `${cell.id}-windows.csv`, 'text/csv')}>
                CSV
              </button>
            </div>
          </header>
          <DataTable table={windows} caption={`Windows of ${cell.id}`} />
        </section>
      </div>
    </>
  );
}
