import { CellsTable } from '../components/CellsTable';
import { ChartCard } from '../components/ChartCard';
import { FilterBar } from '../components/FilterBar';
import { cpuPerRequestChart, serviceCpuByThreadChart } from '../data/charts/overview';
import { describeFilters, selectCells } from '../data/transforms';
import type { ViewProps } from './viewProps';

export function Cells({ run, resolved, onFilters, cellHref }: ViewProps) {
  const cells = selectCells(run.cells, resolved);
  return (
    <>
      <FilterBar resolved={resolved} show={['operation', 'pageSize', 'concurrency', 'tool', 'model', 'rate', 'tls']} onChange={onFilters} />
      <p className="explain">
        Server CPU per request is the measured service’s CPU plus MariaDB’s and Redis’s, per successful request, with its
        interval; the table under the chart breaks it down (the service’s own, and of it what its carriers, where each
        request’s code runs, and its I/O threads used) and gives the load generator’s share. The second chart stacks the
        service’s own CPU by thread: the carriers, the I/O threads (Tomcat’s poller, Netty’s event loops) and the rest
        (Lettuce, the collector, the compilers). The threads are read over the generator’s whole run and the service’s
        figure over the measured span only, so their sum differs from it a little either way (threads that ended during
        a window are left out of it). The table of all cells below is not filtered.
      </p>
      <div className="grid">
        <ChartCard spec={cpuPerRequestChart(cells, describeFilters(resolved))} />
        <ChartCard spec={serviceCpuByThreadChart(cells, describeFilters(resolved))} />
      </div>
      <div className="grid">
        <CellsTable cells={run.cells} cellHref={cellHref} runId={run.runId} />
      </div>
    </>
  );
}
