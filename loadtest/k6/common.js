// Shared by rest.js and grpc.js. Everything a run varies comes from the environment (-e NAME=value),
// set by the orchestrator (loadtest/tandem_bench/loadgen.py):
//   EXECUTOR  constant-vus (closed model, for DURATION) | shared-iterations (ITERATIONS calls, each
//             on the next key, stopping after DURATION at the latest) | constant-arrival-rate (open
//             model: RATE arrivals per second for DURATION, at most VUS in flight)
//   VUS, DURATION (e.g. "5s"), ITERATIONS, RATE
//   KEYS_FILE   JSON array of requests (REST paths, or gRPC request messages); iteration i of the
//               test uses entry i mod length, so a shared-iterations run over the whole array
//               touches every key exactly once
//   SUMMARY_OUT where handleSummary writes k6's summary data (parsed by tandem_bench.parse_k6)
import exec from 'k6/execution';
import { SharedArray } from 'k6/data';

// The statistics tandem_bench.parse_k6 requires (it refuses a summary without p(99), p(99.9), count).
export const SUMMARY_TREND_STATS = ['avg', 'min', 'med', 'max', 'p(90)', 'p(95)', 'p(99)', 'p(99.9)', 'count'];

export const keys = new SharedArray('keys', () => JSON.parse(open(__ENV.KEYS_FILE)));

export function scenario() {
  const vus = parseInt(__ENV.VUS, 10);
  const duration = __ENV.DURATION;
  switch (__ENV.EXECUTOR) {
    case 'constant-vus':
      return { executor: 'constant-vus', vus, duration, gracefulStop: '5s' };
    case 'shared-iterations':
      return {
        executor: 'shared-iterations', vus, iterations: parseInt(__ENV.ITERATIONS, 10),
        maxDuration: duration, gracefulStop: '5s',
      };
    case 'constant-arrival-rate':
      return {
        executor: 'constant-arrival-rate', rate: parseInt(__ENV.RATE, 10), timeUnit: '1s', duration,
        preAllocatedVUs: vus, maxVUs: vus, gracefulStop: '5s',
      };
    default:
      throw new Error(`EXECUTOR must be constant-vus, shared-iterations or constant-arrival-rate, got ${__ENV.EXECUTOR}`);
  }
}

export const options = {
  scenarios: { bench: scenario() },
  summaryTrendStats: SUMMARY_TREND_STATS,
  // no thresholds: the bench reports what it measured, it does not pass or fail a run
};

export function nextKey() {
  return keys[exec.scenario.iterationInTest % keys.length];
}

export function writeSummary(data) {
  return { [__ENV.SUMMARY_OUT]: JSON.stringify(data) };
}
