import { ChartCard } from '../components/ChartCard';
import { FilterBar } from '../components/FilterBar';
import { cachingImprovement, latencyByCacheState, payloadSize, show } from '../data/charts';
import { describeFilters, isTls, selectCells } from '../data/transforms';
import type { Run } from '../data/types';
import type { ViewProps } from './viewProps';

const HEADLINES: { key: string; label: string; hint: string }[] = [
  { key: 'grpcOverRestP50Warm', label: 'gRPC ÷ REST p50 latency (warm)', hint: 'below 1: gRPC answers faster' },
  { key: 'warmHybridOverNoneThroughput', label: 'Warm hybrid ÷ no-cache throughput', hint: 'how many times more requests the L1+L2 cache serves' },
  { key: 'jsonOverProtobufBodyBytes', label: 'JSON ÷ Protobuf body bytes', hint: 'how much larger the JSON body is' },
  { key: 'getGroupOverHelloThroughput', label: 'GetGroup ÷ hello-world throughput', hint: 'share of the bare framework’s rate' },
  // the tls dimension: what encryption costs per wire (absent in runs without TLS cells)
  { key: 'tlsOverPlainP50Rest', label: 'REST · TLS ÷ plain p50 latency', hint: 'above 1: what HTTPS adds to a call' },
  { key: 'tlsOverPlainP50Grpc', label: 'gRPC · TLS ÷ plain p50 latency', hint: 'above 1: what TLS adds to a call' },
  { key: 'tlsOverPlainThroughputRest', label: 'REST · TLS ÷ plain throughput', hint: 'below 1: the capacity HTTPS costs' },
  { key: 'tlsOverPlainThroughputGrpc', label: 'gRPC · TLS ÷ plain throughput', hint: 'below 1: the capacity TLS costs' },
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
  // the TLS cards only for a run that measured over TLS: older runs and plain-only profiles have no pair
  const hasTls = run.cells.some(isTls);
  const items = [...HEADLINES, ...extra.map((key) => ({ key, label: key, hint: '' }))].filter(
    (h) => hasTls || !h.key.startsWith('tlsOverPlain'),
  );
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
      <FilterBar resolved={resolved} show={['operation', 'pageSize', 'concurrency', 'tool', 'model', 'tls']} onChange={onFilters} />
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
