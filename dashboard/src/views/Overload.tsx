import { ChartCard } from '../components/ChartCard';
import { goalRows, goodputChart, overloadPairs, pairName, refusalsAndP99Charts } from '../data/charts/overload';
import { formatValue } from '../data/format';
import type { ViewProps } from './viewProps';

/** Both wires past saturation at once (the overload profile): goodput, refusals, accepted p99, the goals. */
export function Overload({ run }: ViewProps) {
  const pairs = overloadPairs(run);
  if (pairs.length === 0) {
    return (
      <div className="notice" data-testid="no-overload">
        This run has no overload pair: <code>make bench PROFILE=overload</code> drives both wires at once from below to
        three times their measured capacity.
      </div>
    );
  }
  return (
    <>
      <p className="explain">
        Each wire’s capacity is measured first with both wires loaded at once (closed model); then both wires’
        open-model generators run at the same time at a percent of it. Open arrivals over many connections cost a request
        more than closed users do, so a wire serves less than that capacity under them: its goals “at 2×” are read at the
        lowest step offered at least twice its <strong>peak goodput</strong>, the most it served. <strong>Goodput</strong> counts successful answers
        per second; the load beyond it should come back as fast <strong>refusals</strong> (503 / UNAVAILABLE with a retry
        delay) rather than as queueing, so the <strong>accepted requests’ p99</strong>, timed from when each request was
        due, stays bounded. A goal is <strong>met</strong> when its whole 95 % interval is on its side of the bound,{' '}
        <strong>not met</strong> when all of it is on the other side, and <strong>undecided</strong> when the interval
        holds the bound or the generator could not offer the step’s load. A step whose windows the bench flagged is
        greyed, with the flags in its notes, as a cell is: not for other-cpu, few-samples or jit alone.
      </p>
      {pairs.map((pair) => (
        <section key={pair.id} data-testid="overload-pair" data-pair={pair.id}>
          <h3>{pairName(pair)}</h3>
          <div className="grid">
            <ChartCard spec={goodputChart(pair)} />
            {refusalsAndP99Charts(pair).map((spec) => (
              <ChartCard key={spec.key} spec={spec} />
            ))}
          </div>
          <table className="data" data-testid="overload-goals">
            <thead>
              <tr>
                <th>Goal</th>
                <th>Bound</th>
                <th>Measured</th>
                <th>Status</th>
              </tr>
            </thead>
            <tbody>
              {goalRows(pair).map((r) => (
                <tr key={`${r.wire}-${r.goal.key}`} data-goal={`${r.wire}-${r.goal.key}`} data-goal-status={r.goal.status}>
                  <td style={{ borderLeft: `4px solid ${r.colour}` }}>{r.goal.label}</td>
                  <td>{r.bound}</td>
                  <td>{r.figure}</td>
                  <td title={r.goal.reason ?? undefined}>
                    {r.goal.status}
                    {r.goal.reason ? ` — ${r.goal.reason}` : ''}
                    {r.olderRule && <div className="flag-reason" data-testid="older-rule">{r.olderRule}</div>}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <p className="explain">
            Deadline {formatValue(pair.timeoutSeconds, 's')}; steps at {pair.percents.join(', ')} % of capacity. The
            charts’ tables hold every step’s figures: goodput with the lowest warm hit ratio, the L1 flushes, the
            admission limit, the CPU the capped services used (cores; against the profile’s cap, whether the step
            left it any to spare) and the share of the cap’s periods in which they ran out of it and all stopped;
            refusals with timeouts, late answers, other errors, p50/p99 and the p99 the service itself timed.
          </p>
        </section>
      ))}
    </>
  );
}
