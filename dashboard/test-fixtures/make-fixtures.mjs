// Writes the fixture results folders the tests use (deterministic; run again after changing it):
//   node test-fixtures/make-fixtures.mjs
// results/
//   20261125T090000Z-quick-2222222  run B, schemaVersion 2 ("after a change": gRPC faster, one cell gone)
//   20261124T100000Z-quick-1111111  run A, schemaVersion 2: 38 cells over both wires and k6/ghz/oha,
//                                   2 service starts × 2 rounds = 4 windows per cell with 250 ms
//                                   timelines, one open-model rate sweep per wire with its knee,
//                                   headlines with each verdict, a ghz cell flagged generator-saturated,
//                                   a REST Hello cell with one window flagged other-cpu and generator-saturated (kept
//                                   in the headline without it), a REST TLS cell with every window flagged (left out), open cells
//                                   with dropped arrivals, the decomposition's step ratios, an
//                                   overload pair (goals met, not met and undecided), and the service's
//                                   CPU split by thread (run B, as a bench from before the split, has none)
//   20261123T070000Z-quick-b000000  run A as schemaVersion 3 (newer than the dashboard reads)
//   20261122T070000Z-quick-a262159  a schemaVersion 1 run (the older bench): listed, not read
//   20261121T070000Z-quick-broken   run A truncated (not valid JSON)
//   20261120T080000Z-partial        run A with a cell missing its summary
//   20261119T060000Z-watch-3333333  a watch run: four WatchGroup records (one with no p99, missed
//                                   changes and an error), no other cell, every headline missing
// empty/ has no index.json. The numbers are made up but shaped like a bench run (spec-run-v2.md)
// and valid against loadtest/schema/run.schema.json: they follow a simple queueing model
// (fixture-cells.mjs), assembled into runs as the bench does (fixture-runs.mjs); not measurements.
import { mkdirSync, writeFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeRun, makeV1Run, makeWatchRun } from './fixture-runs.mjs';

const here = dirname(fileURLToPath(import.meta.url));

function write(path, text) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

const results = join(here, 'results');
rmSync(results, { recursive: true, force: true });

const runA = makeRun({ runId: '20261124T100000Z-quick-1111111', startedAt: '2026-11-24T10:00:00Z', seed: 1, grpcSpeed: 1, gitCommit: '1111111', withSteps: true, withOverload: true, withThreads: true });
// "after a change": gRPC's service 15 % cheaper, a newer JDK, and the gRPC TLS cell left out (only in A)
const runB = makeRun({
  runId: '20261125T090000Z-quick-2222222', startedAt: '2026-11-25T09:00:00Z', seed: 2, grpcSpeed: 0.85, gitCommit: '2222222',
  jdk: 'OpenJDK 21.0.10', withTlsGrpc: false,
});

const newer = { ...structuredClone(runA), schemaVersion: 3, runId: '20261123T070000Z-quick-b000000', startedAt: '2026-11-23T07:00:00Z' };
const older = makeV1Run({ runId: '20261122T070000Z-quick-a262159', startedAt: '2026-11-22T07:00:00Z', gitCommit: 'a262159' });
const malformedId = '20261121T070000Z-quick-broken';
const partial = structuredClone(runA);
partial.runId = '20261120T080000Z-partial';
partial.startedAt = '2026-11-20T08:00:00Z';
delete partial.cells[3].summary;
const watch = makeWatchRun({ runId: '20261119T060000Z-watch-3333333', startedAt: '2026-11-19T06:00:00Z', gitCommit: '3333333' });

const entry = (run, extra = {}) => ({
  runId: run.runId, path: `${run.runId}/run.json`, startedAt: run.startedAt, profile: run.profile.name,
  gitCommit: run.environment?.gitCommit ?? null, cellCount: run.cells?.length ?? 0, ...extra,
});

for (const run of [runA, runB, newer, older, partial, watch]) write(join(results, run.runId, 'run.json'), JSON.stringify(run));
const text = JSON.stringify(runA);
write(join(results, malformedId, 'run.json'), text.slice(0, Math.floor(text.length / 3)));
write(
  join(results, 'index.json'),
  JSON.stringify(
    {
      schemaVersion: 1,
      runs: [
        entry(runB),
        entry(runA),
        entry(newer),
        entry(older),
        entry(runA, { runId: malformedId, path: `${malformedId}/run.json`, startedAt: '2026-11-21T07:00:00Z' }),
        entry(partial),
        entry(watch),
      ],
    },
    null,
    2,
  ) + '\n',
);
mkdirSync(join(here, 'empty'), { recursive: true });
write(join(here, 'empty', '.gitkeep'), '');
console.log(`wrote ${results} (${runA.cells.length} + ${runB.cells.length} cells) and ${join(here, 'empty')}`);
