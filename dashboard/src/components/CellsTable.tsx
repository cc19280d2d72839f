import { toCsv } from '../data/csv';
import { formatCount, formatFraction, formatInterval, formatNumber, formatValue } from '../data/format';
import { cellsTable, THREAD_KINDS } from '../data/tables';
import { flagReason, keptFlags } from '../data/transforms';
import type { Cell } from '../data/types';
import { downloadText } from '../download';

/**
 * Every cell of the run, one row each: its figures with their 95 % intervals, the service's own p50
 * and p99 (its histogram: the time inside the service, beside a queueing p50), the server CPU per
 * request, the service's kernel share of its CPU and context switches per request, its CPU per
 * request on the requests' own threads and on the I/O threads, the generator's cores, dropped arrivals (open model) and the bench's flags. A flagged row is greyed,
 * its reasons in the Flags column and the row's tooltip.
 */
export function CellsTable({ cells, cellHref, runId }: { cells: Cell[]; cellHref: (id: string) => string; runId: string }) {
  const exportCsv = () => {
    const t = cellsTable(cells);
    downloadText(toCsv(t.columns, t.rows), `${runId}-cells.csv`, 'text/csv');
  };
  return (
    <section className="card wide" data-testid="cells-table">
      <header className="card-head">
        <div>
          <h3>Cells</h3>
          <p className="subtitle">
            All {cells.length} cells of the run (closed model: a fixed number of users; open model: a target arrival rate). Intervals are 95 % bootstrap intervals over the windows; a cell id opens its
            windows over time. Greyed: flagged by the bench, with its reason under the id (every reason in the CSV); a flag the bench keeps in the headline (other-cpu, few-samples, jit) is named under the id, not greyed.
          </p>
        </div>
        <div className="card-actions">
          <button type="button" onClick={exportCsv}>CSV</button>
        </div>
      </header>
      <div className="table-wrap tall">
        <table className="data cells">
          <thead>
            <tr>
              <th scope="col">Cell</th>
              <th scope="col">Role</th>
              <th scope="col">Users</th>
              <th scope="col">Target rate</th>
              <th scope="col">Throughput (req/s)</th>
              <th scope="col">p50 (ms)</th>
              <th scope="col">p99 (ms)</th>
              <th scope="col" title="the service's own p50 and p99 of the cell's successful requests (its latency histogram), from where the framework first sees a request: beside a queueing p50, the time inside the service">In service p50 · p99 (ms)</th>
              <th scope="col">Server CPU (µs/request)</th>
              <th scope="col">Generator cores</th>
              <th scope="col">Dropped arrivals</th>
              <th scope="col">Achieved rate</th>
              <th scope="col">Errors</th>
              <th scope="col">Samples</th>
              <th scope="col">Service · MariaDB · Redis (µs/request)</th>
              <th scope="col" title="the share of the service's CPU the kernel ran on its behalf (system calls), and its threads' context switches per request">Service: kernel share · switches/request</th>
              <th scope="col" title="the service's CPU a request on the carriers that run the virtual threads (each request's own code) and on the server's I/O threads (Tomcat's poller, Netty's event loops); every kind of thread in the row's tooltip and the CSV">Service: requests' code · I/O (µs/request)</th>
            </tr>
          </thead>
          <tbody>
            {cells.map((c) => {
              const s = c.summary;
              const flag = flagReason(c);
              const kept = keptFlags(c);
              const cpu = s.cpuUsPerRequest;
              return (
                <tr key={c.id} data-cell={c.id} className={flag ? 'flagged' : undefined} title={flag ? `greyed: ${flag}` : undefined}>
                  <th scope="row">
                    <a href={cellHref(c.id)}>{c.id}</a>
                    {flag && <div className="flag-reason">greyed: {flag}</div>}
                    {kept && <div className="flag-reason kept" data-testid="kept-flags">flagged, kept in the headline: {kept}</div>}
                  </th>
                  <td>{c.role}</td>
                  <td className="num">{formatCount(c.concurrency)}</td>
                  <td className="num">{c.targetRate === null ? '—' : formatValue(c.targetRate, '/s')}</td>
                  <td className="num">{formatInterval(s.throughputRps, '')}</td>
                  <td className="num">{formatInterval(s.latencyIntervalMs.p50, '')}</td>
                  <td className="num">{formatInterval(s.latencyIntervalMs.p99, '')}</td>
                  <td className="num">{formatNumber(s.serviceLatencyMs?.p50)} · {formatNumber(s.serviceLatencyMs?.p99)}</td>
                  <td className="num">{formatInterval(cpu.server, '')}</td>
                  <td className="num">{formatValue(s.generatorCores, 'cores')}</td>
                  <td className="num">{formatCount(s.droppedIterations)}</td>
                  <td className="num">{s.achievedRate === null ? '—' : formatValue(s.achievedRate, '/s')}</td>
                  <td className="num">{formatFraction(s.errorRate)}</td>
                  <td className="num">{formatCount(s.samples)}</td>
                  <td className="num">{[cpu.service, cpu.mariadb, cpu.redis].map((x) => formatNumber(x)).join(' · ')}</td>
                  <td className="num">
                    {formatFraction(s.serviceThreads?.systemShare)} · {formatNumber(s.serviceThreads?.contextSwitchesPerRequest)}
                  </td>
                  <td className="num" title={threadKindsText(s.serviceThreads?.cpuUsPerRequestByKind)}>
                    {formatNumber(s.serviceThreads?.cpuUsPerRequestByKind?.carrier)} · {formatNumber(s.serviceThreads?.cpuUsPerRequestByKind?.io)}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </section>
  );
}

/** Every kind of thread's µs a request, for a row's tooltip ('' for a run from before they were recorded). */
function threadKindsText(byKind: Readonly<Record<(typeof THREAD_KINDS)[number], number>> | null | undefined): string {
  return byKind ? THREAD_KINDS.map((k) => `${k} ${formatNumber(byKind[k])}`).join(', ') + ' µs/request' : '';
}
