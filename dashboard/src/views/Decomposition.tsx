import { ChartCard } from '../components/ChartCard';
import { HeadlineCard } from '../components/HeadlineCard';
import {
  goalText, goalVerdict, GZIP_HEADLINES, hasDecomposition, gzipChart, HOT_PATH_GOALS, REVALIDATION_HEADLINES,
  STEP_FIGURES, stepChart,
} from '../data/decomposition';
import type { ViewProps } from './viewProps';

/** Where gRPC ÷ REST comes from: the bench's step ratios, each with its interval and verdict. */
export function Decomposition({ run }: ViewProps) {
  if (!hasDecomposition(run.headline)) {
    return (
      <div className="notice" data-testid="no-decomposition">
        This run has no cells that take gRPC ÷ REST apart (REST answering Protobuf, REST over HTTP/2, gzip). The
        <code> protocols</code> profile measures them all: <code>make bench PROFILE=protocols</code>; the quick profile
        keeps one cell of each.
      </div>
    );
  }
  const hasGzip = GZIP_HEADLINES.some((g) => run.headline[g.key]);
  const revalidation = REVALIDATION_HEADLINES.filter((r) => run.headline[r.key]);
  const goals = HOT_PATH_GOALS.filter((g) => run.headline[g.key]);
  return (
    <>
      <p className="explain">
        Each step is a ratio of cells that differ in one thing only: REST’s body as Protobuf instead of JSON, then REST
        over HTTP/2 instead of HTTP/1.1, then gRPC instead of that REST. The steps multiply, so on this log scale their
        bars add up to the whole gap; <strong>Share of the gap</strong> in each table is a step’s part of it (its
        logarithm over their sum). A step whose interval includes 1 is drawn grey: it shows no difference. Each table
        ends with the steps’ product and gRPC ÷ REST JSON measured directly over the steps’ own pairs (the same
        operations, page sizes and users); their values agree unless a step left out a flagged pair. The Overview’s
        gRPC ÷ REST cards pool every warm pair of the run, which may hold pairs the steps never measured.
      </p>
      <div className="grid">
        {STEP_FIGURES.map((f) => (
          <ChartCard key={f.key} spec={stepChart(run.headline, f)} />
        ))}
        {hasGzip && <ChartCard spec={gzipChart(run.headline)} />}
      </div>
      {hasGzip && (
        <div className="headlines" data-testid="gzip-headlines">
          {GZIP_HEADLINES.filter((g) => run.headline[g.key]).map((g) => (
            <HeadlineCard key={g.key} name={g.key} label={`${g.label} · gzip ÷ identity server CPU per request`}
              hint="above 1: what compressing costs the server" headline={run.headline[g.key]} />
          ))}
        </div>
      )}
      {revalidation.length > 0 && (
        <>
          <h3>A client that revalidates</h3>
          <p className="explain">
            REST can answer a client that still holds a current copy with 304 and no body (If-None-Match against the
            ETag); gRPC has no equivalent. The bench’s revalidating client sends <code>If-None-Match: *</code>, which the
            service answers as it would a current tag.
          </p>
          <div className="headlines" data-testid="revalidation-headlines">
            {revalidation.map((r) => (
              <HeadlineCard key={r.key} name={r.key} label={r.label} hint={r.hint} headline={run.headline[r.key]} />
            ))}
          </div>
        </>
      )}
      {goals.length > 0 && (
        <>
          <h3>The hot path against its goals</h3>
          <p className="explain">
            Warm GetGroup against each wire’s hello-world (the framework’s floor), and ListGroups under ten times the
            users. A goal is <strong>met</strong> when the whole 95 % interval is on its side of the bound,{' '}
            <strong>not met</strong> when the whole interval is on the other side (or, for a goal that asks for no
            errors, when a cell it compares failed a request), and <strong>undecided</strong> when the interval holds
            the bound, when there is no interval, or when the bench flagged every window the figure could come from. A card
            is greyed when its goal is undecided; whether its interval excludes 1 (the bench’s verdict) is the smaller line.
          </p>
          <div className="headlines" data-testid="hot-path-goals">
            {goals.map((g) => {
              const goal = goalVerdict(run.headline[g.key], g, run.cells);
              return (
                <div key={g.key} data-goal={g.key} data-goal-status={goal.status}>
                  <HeadlineCard name={g.key} label={g.label} hint={goalText(g)} headline={run.headline[g.key]} goal={goal} goalBound={g.bound} />
                </div>
              );
            })}
          </div>
        </>
      )}
    </>
  );
}
