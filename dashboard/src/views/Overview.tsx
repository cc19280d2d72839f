import { ChartCard } from '../components/ChartCard';
import { FilterBar } from '../components/FilterBar';
import { cachingImprovement, latencyByCacheState, payloadSize, show } from '../data/charts';
import { describeFilters, selectCells } from '../data/transforms';
import type { Run } from '../data/types';
import type { ViewProps } from './viewProps';

const HEADLINES: { key: string; label: string; hint: string }[] = [
  { key: 'grpcOverRestP50Warm', label: 'gRPC ÷ REST p50 latency (warm)', hint: 'below 1: gRPC answers faster' },
  { key: 'warmHybridOverNoneThroughput', label: 'Warm hybrid ÷ no-cache throughput', hint: 'how many times more requests the L1+L2 cache serves' },
  { key: 'jsonOverProtobufBodyBytes', label: 'JSON ÷ Protobuf body bytes', hint: 'how much larger the JSON body is' },
  { key: 'getGroupOverHelloThroughput', label: 'GetGroup ÷ hello-world throughput', hint: 'share of the bare framework’s rate' },
];

/** The bench's description of how a headline was made (and why it is missing, if it is). */
function detailFor(run: Run, key: string): string | null {
  const d = run.headlineDetail;
  if (!d || typeof d !== 'object' || !(key in d)) return null;
  const item = (d as Record<string, unknown>)[key];
  if (item && typeof item === 'object') {
    const { description, reason, pairs } = item as { description?: unknown; reason?: unknown; pairs?: unknown };
    const parts = [
      typeof description === 'string' ? description : null,
      Array.isArray(pairs) && pairs.length > 0 ? `median of ${pairs.length} cell pair${pairs.length > 1 ? 's' : ''}` : null,
      typeof reason === 'string' && reason ? `not measured: ${reason}` : null,
    ].filter(Boolean);
    if (parts.length > 0) return parts.join('; ');
  }
  return show(item);
}

function Headlines({ run }: { run: Run }) {
  const known = HEADLINES.map((h) => h.key);
  const extra = Object.keys(run.headline).filter((k) => !known.includes(k));
  const items = [...HEADLINES, ...extra.map((key) => ({ key, label: key, hint: '' }))];
  return (
    <div className="headlines" data-testid="headlines">
      {items.map((h) => {
        const v = run.headline[h.key];
        return (
          <div className="headline" key={h.key}>
            <div className="big">{typeof v === 'number' ? `${v.toFixed(2)}×` : '—'}</div>
            <div className="headline-label">{h.label}</div>
            <div className="headline-hint">{typeof v === 'number' ? `${v} exactly; ` : 'not measured in this run; '}{h.hint}</div>
            {detailFor(run, h.key) && <div className="headline-detail">{detailFor(run, h.key)}</div>}
          </div>
        );
      })}
    </div>
  );
}

export function Overview({ run, resolved, onFilters }: ViewProps) {
  const cells = selectCells(run.cells, resolved);
  const subtitle = describeFilters(resolved);
  return (
    <>
      <Headlines run={run} />
      <FilterBar resolved={resolved} show={['operation', 'pageSize', 'concurrency', 'tool', 'model']} onChange={onFilters} />
      <div className="grid">
        <ChartCard spec={latencyByCacheState(cells, subtitle)} />
        <ChartCard spec={payloadSize(cells, subtitle)} />
        <ChartCard spec={cachingImprovement(cells, subtitle)} />
      </div>
      {run.notes && run.notes.length > 0 && (
        <section className="card">
          <h3>Notes from the bench</h3>
          <ul>{run.notes.map((n, i) => <li key={i}>{n}</li>)}</ul>
        </section>
      )}
    </>
  );
}
