import { ChartCard } from '../components/ChartCard';
import { FilterBar } from '../components/FilterBar';
import { latencyVsThroughputChart, spectrumChart } from '../data/charts/latency';
import { describeFilters, isTls, selectCells } from '../data/transforms';
import type { ViewProps } from './viewProps';

export function Latency({ run, resolved, onFilters }: ViewProps) {
  const cells = selectCells(run.cells, resolved);
  const sweeps = run.sweeps.filter((s) => isTls(s) === resolved.tls && (resolved.tool === 'all' || s.tool === resolved.tool));
  const tool = resolved.tool === 'all' ? 'all tools' : resolved.tool;
  return (
    <>
      <FilterBar resolved={resolved} show={['operation', 'pageSize', 'concurrency', 'tool', 'model', 'rate', 'tls']} onChange={onFilters} />
      <p className="explain">
        The spectrum shows every percentile the bench could report for the cells the filters select (all cache states),
        pooled over all windows: the further right, the rarer the request. Latency vs throughput comes from the open-model
        rate sweeps: the rate is raised until p99 or dropped arrivals pass the sweep’s limits (the knee).
      </p>
      <div className="grid">
        <ChartCard spec={spectrumChart(cells, describeFilters(resolved))} />
        {sweeps.length > 0 ? (
          <ChartCard spec={latencyVsThroughputChart(sweeps, `${tool}${resolved.tls ? ', over TLS' : ''}`)} />
        ) : (
          <div className="notice" data-testid="no-sweeps">
            This run has no open-model rate sweep{resolved.tool === 'all' ? '' : ` for ${resolved.tool}`}: latency vs
            throughput needs one (a profile with sweeps).
          </div>
        )}
      </div>
    </>
  );
}
