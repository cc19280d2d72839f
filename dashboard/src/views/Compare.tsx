import { ChartCard } from '../components/ChartCard';
import { FilterBar } from '../components/FilterBar';
import { beforeAfter, compareChart, environmentRows, pairCells } from '../data/charts/compare';
import { VERDICT_TITLES } from '../components/HeadlineCard';
import { formatInterval } from '../data/format';
import { describeFilters, selectCells } from '../data/transforms';
import type { Headline, Run } from '../data/types';
import type { CompareProps } from './viewProps';

function runLabel(r: Run): string {
  return `${r.runId} (${r.profile.name}, ${r.startedAt})`;
}

function EnvironmentTable({ a, b }: { a: Run; b: Run }) {
  const rows = [
    { key: 'profile', a: a.profile.name, b: b.profile.name, differs: a.profile.name !== b.profile.name },
    { key: 'startedAt', a: a.startedAt, b: b.startedAt, differs: false },
    ...environmentRows(a.environment, b.environment),
  ];
  return (
    <section className="card wide" data-testid="environments">
      <h3>Environments</h3>
      <div className="table-wrap tall">
        <table className="data wrap">
          <thead>
            <tr><th scope="col">Field</th><th scope="col">Run A</th><th scope="col">Run B</th></tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.key} className={r.differs ? 'differs' : undefined}>
                <th scope="row">{r.key}</th>
                <td>{r.a}</td>
                <td>{r.b}{r.differs && <span className="badge">differs</span>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

function HeadlineTable({ a, b }: { a: Run; b: Run }) {
  const keys = [...new Set([...Object.keys(a.headline), ...Object.keys(b.headline)])];
  const cell = (h: Headline | undefined) =>
    h ? (
      <td className={h.verdict === 'finding' ? 'num' : 'num muted'} title={h.reason ?? undefined}>
        {formatInterval({ value: h.value, low: h.low, high: h.high }, '×')} <span className="verdict-word">{VERDICT_TITLES[h.verdict].toLowerCase()}</span>
      </td>
    ) : (
      <td className="num">—</td>
    );
  return (
    <section className="card wide" data-testid="compare-headlines">
      <h3>Headline ratios</h3>
      <p className="subtitle">Each run’s own ratio with its 95 % interval (body bytes: its min–max range) and verdict (muted: not a finding).</p>
      <div className="table-wrap">
        <table className="data">
          <thead>
            <tr><th scope="col">Headline</th><th scope="col">Run A</th><th scope="col">Run B</th></tr>
          </thead>
          <tbody>
            {keys.map((k) => (
              <tr key={k}>
                <th scope="row">{k}</th>
                {cell(a.headline[k])}
                {cell(b.headline[k])}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

export function Compare({ run, runB, runs, resolved, onFilters, onRunB }: CompareProps) {
  // the run chosen at the top is not one to compare it with
  const readable = runs.flatMap((r) => (r.status === 'ok' && r.run !== run ? [r.run] : []));
  const picker = (
    <label className="filter">
      <span>Compare with</span>
      <select name="runB" value={runB?.runId ?? ''} onChange={(e) => onRunB(e.target.value)}>
        {!runB && <option value="">— choose —</option>}
        {readable.map((r) => (
          <option key={r.runId} value={r.runId}>{runLabel(r)}</option>
        ))}
      </select>
    </label>
  );
  if (!runB) {
    return (
      <>
        <div className="filter-bar">{picker}</div>
        <div className="notice">Comparing needs a second readable run. Run <code>make bench</code> again (for example after a change) and reload.</div>
      </>
    );
  }
  const [a, b] = beforeAfter(run, runB);
  const { pairs, onlyA, onlyB } = pairCells(selectCells(a.cells, resolved), selectCells(b.cells, resolved));
  const subtitle = describeFilters(resolved);
  return (
    <>
      <div className="filter-bar">{picker}</div>
      <FilterBar resolved={resolved} show={['operation', 'pageSize', 'concurrency', 'tool', 'model', 'rate', 'tls']} onChange={onFilters} />
      <p className="explain">
        Run A is the one of the two runs (chosen at the top and here) that started first (before), run B the later
        one (after). Cells are matched by protocol, tool,
        transport, operation, page size, cache mode, temperature, load model, concurrency and rate: {pairs.length} matched
        {onlyA + onlyB > 0 && `, ${onlyA} only in A, ${onlyB} only in B (not plotted)`}. Each bar carries its own 95 %
        interval; where the intervals of A and B overlap, the change is not shown to be real, and where a cell has no
        interval (a sweep cell) the table says “no interval”: nothing is decided.
      </p>
      <div className="grid">
        <ChartCard spec={compareChart(pairs, 'p50', subtitle)} />
        <ChartCard spec={compareChart(pairs, 'throughput', subtitle)} />
        <HeadlineTable a={a} b={b} />
        <EnvironmentTable a={a} b={b} />
      </div>
    </>
  );
}
