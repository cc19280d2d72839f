import { ChartCard } from '../components/ChartCard';
import { HeadlineCard } from '../components/HeadlineCard';
import { GZIP_HEADLINES, hasDecomposition, gzipChart, STEP_FIGURES, stepChart } from '../data/decomposition';
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
  return (
    <>
      <p className="explain">
        Each step is a ratio of cells that differ in one thing only: REST’s body as Protobuf instead of JSON, then REST
        over HTTP/2 instead of HTTP/1.1, then gRPC instead of that REST. The steps multiply, so on this log scale their
        bars add up to the whole gap; <strong>Share of the gap</strong> in each table is a step’s part of it (its
        logarithm over their sum). A step whose interval includes 1 is drawn grey: it shows no difference. The product of
        the steps and gRPC ÷ REST measured directly come from different cells, so they need not agree exactly.
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
    </>
  );
}
