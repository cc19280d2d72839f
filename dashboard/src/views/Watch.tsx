import { ChartCard } from '../components/ChartCard';
import { watchChart, watchRecords } from '../data/charts/watch';
import type { ViewProps } from './viewProps';

/** The WatchGroup cells (the watch profile): change-to-client latency per wire, cache mode and write load. */
export function Watch({ run }: ViewProps) {
  const records = watchRecords(run);
  if (records.length === 0) {
    return (
      <div className="notice" data-testid="no-watch">
        This run has no WatchGroup cells: <code>make bench PROFILE=watch</code> holds watches open on both wires and
        times how long a change takes to reach them.
      </div>
    );
  }
  return (
    <>
      <p className="explain">
        Each record’s watches follow groups of their own that a writer changes through REST at random moments, while load
        writers change other groups at the asked rate. Latency runs from the write’s answer to the watch’s receipt of the
        changed group (from the write’s request: the upper bound); p50 and p99 are nearest-rank over every change of the
        record, a p99 only from 1,000 changes. The services follow the invalidation log every 100 ms by default, which
        bounds what a watch can do. A record that missed changes or failed is greyed.
      </p>
      {/* its table of plotted numbers is the one the end-of-run text prints */}
      <div className="grid" data-testid="watch">
        <ChartCard spec={watchChart(records)} />
      </div>
    </>
  );
}
