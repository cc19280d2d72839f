import { useEffect, useState } from 'react';
import { ErrorBoundary } from './components/ErrorBoundary';
import { loadIndex, loadRun, type IndexState } from './data/load';
import { beforeAfter } from './data/charts/compare';
import { resolveFilters } from './data/transforms';
import type { LoadedRun, Run } from './data/types';
import { formatHash, parseHash, VIEW_TITLES, VIEWS, type Filters, type UrlState } from './data/urlState';
import { formatBytes, formatCount } from './data/format';
import { Cache } from './views/Cache';
import { Cells } from './views/Cells';
import { Compare } from './views/Compare';
import { Concurrency } from './views/Concurrency';
import { Decomposition } from './views/Decomposition';
import { Latency } from './views/Latency';
import { Overload } from './views/Overload';
import { Overview } from './views/Overview';
import { PayloadScaling } from './views/PayloadScaling';
import { Timeline } from './views/Timeline';
import { Watch } from './views/Watch';

/** The URL hash as state: reading follows back/forward, writing replaces the hash. */
function useHashState(): [UrlState, (next: UrlState) => void] {
  const [state, setState] = useState(() => parseHash(window.location.hash));
  useEffect(() => {
    const onHash = () => setState(parseHash(window.location.hash));
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, []);
  const update = (next: UrlState) => {
    const hash = formatHash(next);
    if (hash !== window.location.hash) window.history.pushState(null, '', hash);
    setState(next);
  };
  return [state, update];
}

function useResults(): { index: IndexState; runs: LoadedRun[] } {
  const [index, setIndex] = useState<IndexState>({ status: 'loading' });
  const [runs, setRuns] = useState<LoadedRun[]>([]);
  useEffect(() => {
    let live = true;
    loadIndex().then(async (idx) => {
      if (!live) return;
      if (idx.status === 'ok') setRuns(await Promise.all(idx.entries.map((e) => loadRun(e))));
      if (live) setIndex(idx);
    });
    return () => {
      live = false;
    };
  }, []);
  return { index, runs };
}

function EmptyState() {
  return (
    <div className="notice empty" data-testid="empty-state">
      <h2>No results yet</h2>
      <p>
        There is no bench run to show. Run <code>make bench</code> in the Tandem folder: it measures REST and gRPC
        under each cache mode and writes <code>results/&lt;run-id&gt;/run.json</code> and <code>results/index.json</code>.
      </p>
      <p>Then reload this page (or start it again with <code>make dashboard</code>).</p>
    </div>
  );
}

function UnreadableRuns({ runs }: { runs: LoadedRun[] }) {
  const bad = runs.filter((r) => r.status !== 'ok');
  if (bad.length === 0) return null;
  const older = bad.filter((r) => r.status === 'older').length;
  const unreadable = bad.length - older;
  const parts = [
    unreadable > 0 && `${unreadable} run${unreadable > 1 ? 's' : ''} could not be read`,
    older > 0 && `${older} run${older > 1 ? 's were' : ' was'} recorded by an older bench`,
  ].filter(Boolean);
  return (
    <details className="notice warn" data-testid="unreadable-runs">
      <summary>{parts.join(' and ')}: left out</summary>
      <ul>
        {bad.map((r) => (
          <li key={r.entry.runId}>
            <strong>{r.entry.runId}</strong>: {r.status === 'older' ? r.reason : `unreadable — ${r.status === 'unreadable' ? r.reason : ''}`}
          </li>
        ))}
      </ul>
    </details>
  );
}

function RunPicker({ runs, value, onChange }: { runs: LoadedRun[]; value: string; onChange: (id: string) => void }) {
  return (
    <label className="filter run-picker">
      <span>Run</span>
      <select name="run" value={value} onChange={(e) => onChange(e.target.value)}>
        {runs.map((r) => (
          <option key={r.entry.runId} value={r.entry.runId}>
            {r.entry.runId}
            {r.status === 'ok'
              ? ` — ${r.run.profile.name}, ${r.run.cells.length} cells`
              : r.status === 'older'
                ? ` — older bench (schema ${r.schemaVersion})`
                : ' — unreadable'}
          </option>
        ))}
      </select>
    </label>
  );
}

export function App() {
  const { index, runs } = useResults();
  const [state, setState] = useHashState();

  const readable = runs.flatMap((r) => (r.status === 'ok' ? [r.run] : []));
  // Compare defaults to the two newest readable runs (the index lists the newest first); which of
  // the two is A (before) and B (after) is their start times' to say (beforeAfter), not the URL's
  const defaultA = state.view === 'compare' && readable.length > 1 ? readable[1] : readable[0];
  const selected = runs.find((r) => r.entry.runId === state.run) ?? runs.find((r) => r.status === 'ok' && r.run === defaultA);
  // the run compared with the one chosen at the top (never itself: a link naming it twice gets another)
  const runB: Run | null =
    readable.find((r) => r.runId === state.runB && !(selected?.status === 'ok' && r === selected.run)) ??
    readable.find((r) => selected?.status === 'ok' && r !== selected.run) ??
    null;
  const compared = state.view === 'compare' && selected?.status === 'ok' && runB ? beforeAfter(selected.run, runB) : null;

  const setFilters = (patch: Partial<Filters>) => setState({ ...state, filters: { ...state.filters, ...patch } });

  let body;
  if (index.status === 'loading') body = <p className="loading">Loading results…</p>;
  else if (index.status === 'empty') body = <EmptyState />;
  else if (index.status === 'error') {
    body = (
      <div className="notice error" data-testid="index-error">
        <h2>The results index could not be read</h2>
        <p>{index.reason}</p>
        <p>Run <code>make bench</code> to write a fresh one.</p>
      </div>
    );
  } else if (!selected) {
    body = <div className="notice error" data-testid="no-readable">None of the {runs.length} runs could be read; see the reasons above.</div>;
  } else if (selected.status === 'older') {
    body = (
      <div className="notice warn" data-testid="selected-older">
        <h2>Run {selected.entry.runId} was {selected.reason}</h2>
        <p>
          This dashboard reads run.json schema version 2 (Bench v2: intervals, windows, flags, sweeps). Run{' '}
          <code>make bench</code> again to record a run it can show, or pick another run above.
        </p>
      </div>
    );
  } else if (selected.status === 'unreadable') {
    body = (
      <div className="notice error" data-testid="selected-unreadable">
        <h2>Run {selected.entry.runId} is unreadable</h2>
        <p>{selected.reason}</p>
        <p>Pick another run above.</p>
      </div>
    );
  } else {
    const run = selected.run;
    const resolved = resolveFilters(run.cells, state.filters);
    const props = {
      run,
      filters: state.filters,
      resolved,
      onFilters: setFilters,
      cellId: state.cell,
      onCell: (cell: string) => setState({ ...state, cell }),
      cellHref: (cell: string) => formatHash({ ...state, run: run.runId, view: 'timeline', cell }),
    };
    body = (
      <ErrorBoundary key={`${state.view}/${run.runId}`} what={`the ${VIEW_TITLES[state.view]} view`}>
        {state.view === 'overview' && <Overview {...props} />}
        {state.view === 'decomposition' && <Decomposition {...props} />}
        {state.view === 'concurrency' && <Concurrency {...props} />}
        {state.view === 'latency' && <Latency {...props} />}
        {state.view === 'overload' && <Overload {...props} />}
        {state.view === 'watch' && <Watch {...props} />}
        {state.view === 'timeline' && <Timeline {...props} />}
        {state.view === 'cells' && <Cells {...props} />}
        {state.view === 'payload' && <PayloadScaling {...props} />}
        {state.view === 'cache' && <Cache {...props} />}
        {state.view === 'compare' && (
          <Compare {...props} runs={runs} runB={runB} onRunB={(id) => setState({ ...state, run: run.runId, runB: id })} />
        )}
      </ErrorBoundary>
    );
  }

  return (
    <div className="app">
      <header className="top">
        <h1>Tandem bench results</h1>
        <nav aria-label="Views">
          {VIEWS.map((v) => (
            <a key={v} href={formatHash({ ...state, view: v })} className={v === state.view ? 'active' : undefined}
              aria-current={v === state.view ? 'page' : undefined}>
              {VIEW_TITLES[v]}
            </a>
          ))}
        </nav>
        {runs.length > 0 && (
          <div className="run-bar">
            <RunPicker runs={runs} value={selected?.entry.runId ?? ''} onChange={(id) => setState({ ...state, run: id })} />
            {selected?.status === 'ok' && <RunSummary run={selected.run} />}
          </div>
        )}
      </header>
      <UnreadableRuns runs={runs} />
      <main>
        <h2 className="view-title">{VIEW_TITLES[state.view]}{compared ? `: ${compared[0].runId} (A, before) vs ${compared[1].runId} (B, after)` : ''}</h2>
        {body}
      </main>
    </div>
  );
}

function RunSummary({ run }: { run: Run }) {
  const e = run.environment;
  const p = e.placement;
  const q = p?.serviceCpuQuota;
  const bits = [
    `started ${run.startedAt}`,
    e.cpuModel && `${e.cpuModel}`,
    typeof e.cores === 'number' && `${formatCount(e.cores)} cores`,
    typeof e.memoryBytes === 'number' && formatBytes(e.memoryBytes),
    e.jdk && `JDK ${e.jdk}`,
    p && p.method === 'taskset' && `pinned: services CPU ${p.services ?? '—'}, generator CPU ${p.generator ?? '—'}`,
    p && p.method === 'none' && 'not pinned to CPUs',
    q && q.method !== 'none' && `services capped at ${q.cores} core (${q.method})`,
    q && q.method === 'none' && q.cores !== null && `service CPU cap of ${q.cores} core asked, not applied`,
    e.gitCommit && `commit ${String(e.gitCommit).slice(0, 10)}${e.gitDirty ? ' (dirty)' : ''}`,
  ].filter(Boolean);
  return <p className="run-summary">{bits.join(' · ')}</p>;
}
