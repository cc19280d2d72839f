import { ChartCard } from '../components/ChartCard';
import { FilterBar } from '../components/FilterBar';
import { HeadlineCard } from '../components/HeadlineCard';
import { latencyByCacheState, payloadSize, throughputByCacheState } from '../data/charts/overview';
import { DECOMPOSITION_HEADLINES } from '../data/decomposition';
import { describeFilters, isFlagged, selectCells } from '../data/transforms';
import type { Run } from '../data/types';
import { formatHash, parseHash } from '../data/urlState';
import type { ViewProps } from './viewProps';

export const HEADLINES: { key: string; label: string; hint: string }[] = [
  { key: 'grpcOverRestP50Warm', label: 'gRPC ÷ REST p50 latency (warm)', hint: 'below 1: gRPC answers faster' },
  { key: 'grpcOverRestThroughputWarm', label: 'gRPC ÷ REST throughput (warm, every pair)', hint: 'above 1: gRPC serves more requests; over every warm closed pair of the run (Where the difference comes from has the steps’ own)' },
  { key: 'grpcOverRestServerCpuPerRequest', label: 'gRPC ÷ REST server CPU per request (every pair)', hint: 'below 1: a gRPC call costs the server less CPU; over every warm closed pair of the run (Where the difference comes from has the steps’ own)' },
  { key: 'warmHybridOverNoneThroughput', label: 'Warm hybrid ÷ no-cache throughput', hint: 'how many times more requests the L1+L2 cache serves' },
  { key: 'jsonOverProtobufBodyBytes', label: 'JSON ÷ Protobuf body bytes', hint: 'how much larger the JSON body is' },
  { key: 'getGroupOverHelloThroughput', label: 'GetGroup ÷ hello-world throughput', hint: 'share of the bare framework’s rate' },
  { key: 'tlsOverPlainP50Rest', label: 'REST · TLS ÷ plain p50 latency', hint: 'above 1: what HTTPS adds to a call' },
  { key: 'tlsOverPlainP50Grpc', label: 'gRPC · TLS ÷ plain p50 latency', hint: 'above 1: what TLS adds to a call' },
  { key: 'tlsOverPlainThroughputRest', label: 'REST · TLS ÷ plain throughput', hint: 'below 1: the capacity HTTPS costs' },
  { key: 'tlsOverPlainThroughputGrpc', label: 'gRPC · TLS ÷ plain throughput', hint: 'below 1: the capacity TLS costs' },
  { key: 'tracedOverUntracedServerCpuRest', label: 'REST · traced ÷ untraced server CPU per request', hint: 'above 1: what tracing every request costs' },
  { key: 'tracedOverUntracedServerCpuGrpc', label: 'gRPC · traced ÷ untraced server CPU per request', hint: 'above 1: what tracing every request costs' },
  { key: 'tracedOverUntracedThroughputRest', label: 'REST · traced ÷ untraced throughput', hint: 'below 1: the capacity tracing costs' },
  { key: 'tracedOverUntracedThroughputGrpc', label: 'gRPC · traced ÷ untraced throughput', hint: 'below 1: the capacity tracing costs' },
];

function Headlines({ run }: { run: Run }) {
  // the step ratios have a view of their own (Where the difference comes from)
  const known = [...HEADLINES.map((h) => h.key), ...DECOMPOSITION_HEADLINES];
  const extra = Object.keys(run.headline).filter((k) => !known.includes(k));
  const items = [...HEADLINES, ...extra.map((key) => ({ key, label: key, hint: '' }))].filter((h) => run.headline[h.key]);
  if (items.length === 0) return <div className="notice">This run carries no headline ratios.</div>;
  return (
    <div className="headlines" data-testid="headlines">
      {items.map((h) => (
        <HeadlineCard key={h.key} name={h.key} label={h.label} hint={h.hint} headline={run.headline[h.key]} />
      ))}
    </div>
  );
}

export function Overview({ run, resolved, onFilters }: ViewProps) {
  const cells = selectCells(run.cells, resolved);
  const subtitle = describeFilters(resolved);
  const flagged = run.cells.filter(isFlagged).length;
  // the bench leaves a cell out of the headline ratios only when it flagged every window
  // (headlineEligible false); from the others it drops just the flagged windows (windows.py eligible)
  const leftOut = run.cells.filter((c) => !c.headlineEligible).length;
  const kept = flagged - leftOut; // a cell the bench leaves out is flagged (isFlagged)
  return (
    <>
      <p className="explain">
        Each headline is a ratio of cell pairs with its 95 % bootstrap interval (over the measured windows); the body
        bytes card’s brackets are instead its lowest and highest over the operations and page sizes. Only a
        <strong> finding</strong> is a result: an interval that includes 1, flagged cells or a missing pair are shown
        muted, with the bench’s reason.
      </p>
      {(run.watch?.length ?? 0) > 0 && (
        // a watch run measures nothing else: its headlines are all missing, its figures are in the Watches view
        <p className="notice" data-testid="has-watch">
          This run holds {run.watch!.length} WatchGroup record{run.watch!.length > 1 ? 's' : ''}
          {run.cells.length === 0 ? ' and no other cells' : ''}: their change-to-client latency is in the{' '}
          <a href={formatHash({ ...parseHash(window.location.hash), run: run.runId, view: 'watch' })}>Watches</a> view.
        </p>
      )}
      <Headlines run={run} />
      {flagged > 0 && (
        <p className="notice warn" data-testid="flagged-summary">
          {flagged} of {run.cells.length} cells are flagged by the bench (drawn grey, reasons under each chart and in the
          Cells &amp; CPU table).
          {leftOut > 0 && ` ${leftOut} of them, every window flagged, ${leftOut === 1 ? 'is' : 'are'} left out of the headline ratios.`}
          {kept > 0 && ` The headline ratios keep the other ${kept === 1 ? 'one' : kept} and drop only ${kept === 1 ? 'its' : 'their'} flagged windows.`}
        </p>
      )}
      <FilterBar resolved={resolved} show={['operation', 'pageSize', 'concurrency', 'tool', 'model', 'rate', 'tls']} onChange={onFilters} />
      <div className="grid">
        <ChartCard spec={latencyByCacheState(cells, subtitle)} />
        <ChartCard spec={throughputByCacheState(cells, subtitle)} />
        <ChartCard spec={payloadSize(cells, subtitle)} />
      </div>
      {run.notes.length > 0 && (
        <section className="card">
          <h3>Notes from the bench</h3>
          <ul>{run.notes.map((n, i) => <li key={i}>{n}</li>)}</ul>
        </section>
      )}
    </>
  );
}
