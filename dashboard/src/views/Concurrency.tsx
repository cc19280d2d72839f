import { ChartCard } from '../components/ChartCard';
import { FilterBar } from '../components/FilterBar';
import { CONCURRENCY_METRICS, concurrencyChart } from '../data/charts/concurrency';
import { describeFilters, selectCells } from '../data/transforms';
import type { ViewProps } from './viewProps';

export function Concurrency({ run, resolved, onFilters }: ViewProps) {
  const cells = selectCells(run.cells, resolved, ['concurrency']);
  const subtitle = `${describeFilters(resolved, ['concurrency'])}; cache modes ${resolved.temperature}`;
  const levels = new Set(cells.map((c) => c.concurrency)).size;
  return (
    <>
      <FilterBar resolved={resolved} show={['operation', 'pageSize', 'tool', 'model', 'rate', 'temperature', 'tls']} onChange={onFilters} />
      <p className="explain">
        One line per protocol and cache mode: colour is the protocol, the line style the cache mode.
        {levels < 2 && ' This run measured this operation at one concurrency only, so each line is a single point.'}
      </p>
      <div className="grid">
        {CONCURRENCY_METRICS.map((m) => (
          <ChartCard key={m.key} spec={concurrencyChart(cells, resolved.temperature, m, subtitle)} />
        ))}
      </div>
    </>
  );
}
