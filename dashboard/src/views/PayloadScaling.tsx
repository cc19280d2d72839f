import { ChartCard } from '../components/ChartCard';
import { FilterBar } from '../components/FilterBar';
import { bodyBytesByPageSize, payloadScalingChart } from '../data/charts/payloadScaling';
import { distinct, isDefaultBody, isTls, mostCommon, users } from '../data/transforms';
import type { ViewProps } from './viewProps';

export function PayloadScaling({ run, filters, resolved, onFilters }: ViewProps) {
  // never a traced cell or fit (the bench fits traced cells apart, stats.py): as selectCells, this
  // view charts the untraced service, and a traced fit would be drawn with the untraced one's label
  const paged = run.cells.filter(
    (c) =>
      c.pageSize !== null &&
      isDefaultBody(c) &&
      c.tracing !== true &&
      c.model === resolved.model &&
      isTls(c) === resolved.tls &&
      (resolved.tool === 'all' || c.tool === resolved.tool),
  );
  const candidates = run.fits.filter(
    (f) =>
      isDefaultBody(f) &&
      f.tracing !== true &&
      isTls(f) === resolved.tls &&
      (resolved.tool === 'all' || f.tool === resolved.tool) &&
      (f.temperature === 'none' || f.temperature === resolved.temperature),
  );
  // A sweep over page sizes runs at one concurrency; a profile may sweep at several.
  const levels = distinct(candidates.map((f) => f.concurrency)).sort((a, b) => a - b);
  const level =
    filters.concurrency !== null && levels.includes(filters.concurrency)
      ? filters.concurrency
      : mostCommon(candidates.map((f) => f.concurrency));
  const shown = candidates.filter((f) => f.concurrency === level);
  const op = shown[0]?.operation ?? paged[0]?.operation ?? 'ListGroups';
  const tool = resolved.tool === 'all' ? 'all tools' : resolved.tool;
  const subtitle = `${op}, ${level ? `${users(level)}, ` : ''}${tool}; cache modes ${resolved.temperature}`;
  return (
    <>
      <FilterBar resolved={resolved} show={['tool', 'model', 'temperature', 'tls']} onChange={onFilters}>
        {levels.length > 0 && (
          <label className="filter">
            <span>Concurrency</span>
            <select name="c" value={String(level)} onChange={(e) => onFilters({ concurrency: Number(e.target.value) })}>
              {levels.map((l) => (
                <option key={l} value={l}>{users(l)}</option>
              ))}
            </select>
          </label>
        )}
      </FilterBar>
      <p className="explain">
        Cycle time = A + B·N over page size N, fitted to the p50 of closed-model cells{level ? ` at ${users(level)}` : ''}:
        A is the fitted p50 at N = 0 (ms), B what a row adds to it (ms/row). With many users in flight that p50 is
        mostly queueing (about users ÷ throughput), so A is not a request’s fixed cost nor B its cost per row; the
        server CPU fit in the table is what a request and a row cost the server. The fits are the bench’s (run.json’s
        fits); the dashboard draws them and does not fit anything itself.
      </p>
      {shown.length === 0 ? (
        <div className="notice">This run carries no page-size fit for these filters (the bench fits a sweep of at least two page sizes).</div>
      ) : (
        <div className="grid">
          <ChartCard spec={payloadScalingChart(shown, subtitle, run.cells)} />
          <ChartCard spec={bodyBytesByPageSize(paged, `${op}, ${tool}`)} />
        </div>
      )}
    </>
  );
}
