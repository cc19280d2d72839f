import { ChartCard } from '../components/ChartCard';
import { FilterBar } from '../components/FilterBar';
import { hitRatioChart, temperatureChart } from '../data/charts/cache';
import { describeFilters, selectCells } from '../data/transforms';
import type { ViewProps } from './viewProps';

export function Cache({ run, resolved, onFilters }: ViewProps) {
  const cells = selectCells(run.cells, resolved);
  const subtitle = describeFilters(resolved);
  return (
    <>
      <FilterBar resolved={resolved} show={['operation', 'pageSize', 'concurrency', 'tool', 'model', 'rate', 'tls']} onChange={onFilters} />
      <p className="explain">Hit ratios are read from the service’s own cache counters over each cell. L1 is Caffeine in process, L2 is Redis; a level a mode does not use has no bar.</p>
      <div className="grid">
        <ChartCard spec={hitRatioChart(cells, subtitle)} />
        <ChartCard spec={temperatureChart(cells, 'p50', subtitle)} />
        <ChartCard spec={temperatureChart(cells, 'throughput', subtitle)} />
      </div>
    </>
  );
}
