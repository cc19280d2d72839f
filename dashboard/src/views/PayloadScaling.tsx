import { ChartCard } from '../components/ChartCard';
import { FilterBar } from '../components/FilterBar';
import { bodyBytesByPageSize, fitsFor, payloadScalingChart } from '../data/charts';
import type { Fit } from '../data/types';
import type { ViewProps } from './viewProps';

export function PayloadScaling({ run, resolved, onFilters }: ViewProps) {
  const paged = run.cells.filter(
    (c) => c.pageSize !== null && c.model === resolved.model && (resolved.tool === 'all' || c.tool === resolved.tool),
  );
  const { fits, computed } = fitsFor(run.fits, paged);
  const shown = fits.filter(
    (f: Fit) =>
      (resolved.tool === 'all' || f.tool === resolved.tool) &&
      (f.temperature === 'none' || f.temperature === resolved.temperature),
  );
  const op = shown[0]?.operation ?? paged[0]?.operation ?? 'ListGroups';
  const subtitle = `${op}, ${resolved.tool === 'all' ? 'all tools' : resolved.tool}; cache modes ${resolved.temperature}`;
  return (
    <>
      <FilterBar resolved={resolved} show={['tool', 'model', 'temperature']} onChange={onFilters} />
      <p className="explain">
        Cycle time = A + B·N over page size N: A is the fixed cost per request (ms), B the cost per row (ms/row).
        {computed && shown.length > 0 && ' This run carries no fits; the dashboard fitted these from the cells.'}
      </p>
      {shown.length === 0 ? (
        <div className="notice">This run has no page-size sweep to fit (it needs at least two page sizes).</div>
      ) : (
        <div className="grid">
          <ChartCard spec={payloadScalingChart(shown, subtitle)} />
          <ChartCard spec={bodyBytesByPageSize(paged, `${op}, ${resolved.tool === 'all' ? 'all tools' : resolved.tool}`)} />
        </div>
      )}
    </>
  );
}
