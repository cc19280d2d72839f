// Writes the fixture results folders the tests use (deterministic; run again after changing it):
//   node test-fixtures/make-fixtures.mjs
// results/  two good runs made here (for Compare), the bench's own example run, its malformed
//           (truncated) and newer-schema run files, copied from loadtest/tests/fixtures, and a
//           partial run (a cell without its summary); empty/ has no index.json.
// The numbers are made up but shaped like a bench run (they follow loadtest/schema/run.schema.json):
// they are not measurements.
import { copyFileSync, mkdirSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

function prng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const r3 = (x) => Math.round(x * 1000) / 1000;
const r1 = (x) => Math.round(x * 10) / 10;

const TOOLS = [
  ['rest', 'k6'],
  ['grpc', 'k6'],
  ['grpc', 'ghz'],
];
const STATES = [
  ['none', 'none'],
  ['local', 'cold'],
  ['local', 'warm'],
  ['redis', 'cold'],
  ['redis', 'warm'],
  ['hybrid', 'cold'],
  ['hybrid', 'warm'],
];
const CACHE_FACTOR = { 'none/none': 4, 'local/cold': 5, 'local/warm': 1, 'redis/cold': 5.3, 'redis/warm': 1.8, 'hybrid/cold': 5.5, 'hybrid/warm': 1.05 };

function hitRatio(mode, temp) {
  if (mode === 'none') return { l1: null, l2: null, overall: null };
  const warm = temp === 'warm';
  if (mode === 'local') return { l1: warm ? 0.992 : 0.011, l2: null, overall: warm ? 0.992 : 0.011 };
  if (mode === 'redis') return { l1: null, l2: warm ? 0.989 : 0.008, overall: warm ? 0.989 : 0.008 };
  return { l1: warm ? 0.97 : 0.01, l2: warm ? 0.9 : 0.005, overall: warm ? 0.997 : 0.015 };
}

function bodyBytes(protocol, op, n) {
  if (op === 'Hello') return protocol === 'rest' ? 27 : 14;
  if (op === 'GetGroup') return protocol === 'rest' ? 412 : 251;
  return protocol === 'rest' ? 31 + 121 * n : 9 + 72 * n;
}

function measurement(rand, { protocol, tool, op, n, mode, temp, c, speed }) {
  const base = (protocol === 'rest' ? 0.42 : 0.31) * speed;
  const perRow = (protocol === 'rest' ? 0.012 : 0.008) + (mode === 'none' || temp === 'cold' ? 0.02 : 0);
  const factor = op === 'Hello' ? 0.6 : CACHE_FACTOR[`${mode}/${temp}`];
  const jitter = 1 + (rand() - 0.5) * 0.06;
  const p50 = (base * factor + (n ?? 0) * perRow) * (1 + c / 12) * jitter;
  const throughput = (c / p50) * 1000 * (tool === 'ghz' ? 1.08 : 1);
  const seconds = 10;
  const requests = Math.round(throughput * seconds);
  const body = bodyBytes(protocol, op, n);
  const hasWire = tool === 'k6';
  return {
    requests,
    errors: 0,
    errorRate: 0,
    throughputRps: r1(throughput),
    latencyMs: { mean: r3(p50 * 1.12), p50: r3(p50), p90: r3(p50 * 1.6), p95: r3(p50 * 1.9), p99: r3(p50 * 2.8), p999: r3(p50 * 4.5), max: r3(p50 * 9) },
    bodyBytes: body,
    wireBytesSentPerRequest: hasWire ? (protocol === 'rest' ? 182 : 96) : null,
    wireBytesReceivedPerRequest: hasWire ? body + (protocol === 'rest' ? 151 : 43) : null,
    hitRatio: hitRatio(op === 'Hello' ? 'none' : mode, temp),
    loadGenCpuSeconds: r1(seconds * 0.4),
    loadGenCpuPercent: r1(40 + rand() * 10),
    droppedIterations: null,
    achievedRate: null,
  };
}

function medianOf(ms) {
  const med = (xs) => {
    const v = [...xs].sort((a, b) => a - b);
    const m = Math.floor(v.length / 2);
    return v.length % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
  };
  const out = structuredClone(ms[0]);
  for (const k of ['requests', 'throughputRps', 'loadGenCpuSeconds', 'loadGenCpuPercent']) out[k] = med(ms.map((m) => m[k]));
  for (const k of Object.keys(out.latencyMs)) out.latencyMs[k] = r3(med(ms.map((m) => m.latencyMs[k])));
  out.throughputRps = r1(out.throughputRps);
  return out;
}

const minMax = (xs) => ({ min: Math.min(...xs), max: Math.max(...xs) });

function makeRun({ runId, startedAt, seed, grpcSpeed, withGhz, gitCommit }) {
  const rand = prng(seed);
  const cells = [];
  const add = (protocol, tool, op, n, mode, temp, c, model = 'closed') => {
    if (tool === 'ghz' && !withGhz) return;
    const speed = protocol === 'grpc' ? grpcSpeed : 1;
    const runs = [0, 1].map(() => measurement(rand, { protocol, tool, op, n, mode, temp, c, speed }));
    const summary = medianOf(runs);
    if (model === 'open') {
      summary.achievedRate = Math.min(2000, summary.throughputRps);
      summary.droppedIterations = 12;
    }
    cells.push({
      id: [protocol, tool, op, n ?? 'x', mode, temp, `c${c}`, model].join('-'),
      protocol, tool, operation: op, pageSize: n, cacheMode: mode, temperature: temp, model,
      concurrency: c, connections: c, targetRate: model === 'open' ? 2000 : null,
      durationSeconds: 10, warmupSeconds: 3, repetitions: 2, runs, summary,
      spread: {
        throughputRps: minMax(runs.map((r) => r.throughputRps)),
        latencyMs: { p50: minMax(runs.map((r) => r.latencyMs.p50)), p99: minMax(runs.map((r) => r.latencyMs.p99)) },
      },
    });
  };
  for (const [protocol, tool] of TOOLS) {
    for (const [mode, temp] of STATES) {
      for (const c of [1, 10, 50]) add(protocol, tool, 'GetGroup', null, mode, temp, c);
      for (const n of [1, 10, 50]) add(protocol, tool, 'ListGroups', n, mode, temp, 10);
      for (const c of [1, 10, 50]) add(protocol, tool, 'ListGroups', 20, mode, temp, c);
    }
    for (const c of [1, 10, 50]) add(protocol, tool, 'Hello', null, 'none', 'none', c);
    if (tool === 'k6') add(protocol, tool, 'GetGroup', null, 'hybrid', 'warm', 50, 'open');
  }

  const fits = [];
  for (const [protocol, tool] of TOOLS) {
    for (const [mode, temp] of STATES) {
      const sweep = cells
        .filter((c) => c.protocol === protocol && c.tool === tool && c.operation === 'ListGroups' && c.cacheMode === mode && c.temperature === temp && c.concurrency === 10)
        .sort((a, b) => a.pageSize - b.pageSize);
      const pts = sweep.map((c) => ({ pageSize: c.pageSize, latencyMs: c.summary.latencyMs.p50 }));
      if (pts.length < 2) continue;
      const n = pts.length;
      const mx = pts.reduce((s, p) => s + p.pageSize, 0) / n;
      const my = pts.reduce((s, p) => s + p.latencyMs, 0) / n;
      const b = pts.reduce((s, p) => s + (p.pageSize - mx) * (p.latencyMs - my), 0) / pts.reduce((s, p) => s + (p.pageSize - mx) ** 2, 0);
      const a = my - b * mx;
      const ssTot = pts.reduce((s, p) => s + (p.latencyMs - my) ** 2, 0);
      const ssRes = pts.reduce((s, p) => s + (p.latencyMs - a - b * p.pageSize) ** 2, 0);
      fits.push({
        protocol, tool, cacheMode: mode, temperature: temp, operation: 'ListGroups', concurrency: 10, metric: 'p50',
        a: r3(a), b: Math.round(b * 1e6) / 1e6, r2: Math.round((1 - ssRes / ssTot) * 1e4) / 1e4, points: pts, cellIds: sweep.map((c) => c.id),
      });
    }
  }

  const find = (q) => cells.find((c) => Object.entries(q).every(([k, v]) => c[k] === v));
  const k6 = { tool: 'k6', model: 'closed' };
  const gWarm = find({ ...k6, protocol: 'grpc', operation: 'GetGroup', cacheMode: 'hybrid', temperature: 'warm', concurrency: 1 });
  const rWarm = find({ ...k6, protocol: 'rest', operation: 'GetGroup', cacheMode: 'hybrid', temperature: 'warm', concurrency: 1 });
  const hyb = find({ ...k6, protocol: 'rest', operation: 'ListGroups', pageSize: 20, cacheMode: 'hybrid', temperature: 'warm', concurrency: 50 });
  const none = find({ ...k6, protocol: 'rest', operation: 'ListGroups', pageSize: 20, cacheMode: 'none', concurrency: 50 });
  const get50 = find({ ...k6, protocol: 'rest', operation: 'GetGroup', cacheMode: 'hybrid', temperature: 'warm', concurrency: 50 });
  const hello50 = find({ ...k6, protocol: 'rest', operation: 'Hello', concurrency: 50 });
  const r4 = (x) => Math.round(x * 1e4) / 1e4;
  const detail = (description, num, den) => ({
    description,
    pairs: [{ numeratorCellId: num.id, denominatorCellId: den.id, ratio: null }],
    reason: null,
  });

  return {
    schemaVersion: 1,
    runId,
    startedAt,
    finishedAt: startedAt.replace(/T(\d\d)/, (_, h) => `T${String(Number(h) + 1).padStart(2, '0')}`),
    profile: { name: 'quick', concurrency: [1, 10, 50], pageSizes: [1, 10, 20, 50], durationSeconds: 10, warmupSeconds: 3, repetitions: 2 },
    environment: {
      cpuModel: 'AMD EPYC 7B13', cores: 2, memoryBytes: 25769803776, os: 'Debian GNU/Linux 12 (bookworm)', kernel: '6.1.0-28-amd64',
      jdk: '21.0.5', springBoot: '4.1.0', grpcJava: '1.76.0', redis: '7.0.15', mariadb: '10.11.6', k6: 'v1.8.1', ghz: 'v0.120.0',
      gitCommit, gitDirty: false, loadGeneratorNote: 'k6 and ghz ran on the same 2-core machine as the services',
    },
    cells,
    fits,
    headline: {
      grpcOverRestP50Warm: r4(gWarm.summary.latencyMs.p50 / rWarm.summary.latencyMs.p50),
      warmHybridOverNoneThroughput: r4(hyb.summary.throughputRps / none.summary.throughputRps),
      jsonOverProtobufBodyBytes: r4(412 / 251),
      getGroupOverHelloThroughput: r4(get50.summary.throughputRps / hello50.summary.throughputRps),
    },
    headlineDetail: {
      grpcOverRestP50Warm: detail('gRPC p50 ÷ REST p50, warm hybrid GetGroup, 1 user, k6 on both wires', gWarm, rWarm),
      warmHybridOverNoneThroughput: detail('ListGroups page size 20, 50 users, REST via k6', hyb, none),
      jsonOverProtobufBodyBytes: detail('GetGroup response body', rWarm, gWarm),
      getGroupOverHelloThroughput: detail('REST via k6, 50 users, hybrid warm', get50, hello50),
    },
    notes: ['Fixture data for the dashboard tests: made-up numbers shaped like a quick run.'],
  };
}

function write(path, text) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

const results = join(here, 'results');
rmSync(results, { recursive: true, force: true });

const runA = makeRun({ runId: '20261124T100000Z-quick-1111111', startedAt: '2026-11-24T10:00:00Z', seed: 1, grpcSpeed: 1, withGhz: true, gitCommit: '1111111' });
const runB = makeRun({ runId: '20261125T090000Z-quick-2222222', startedAt: '2026-11-25T09:00:00Z', seed: 2, grpcSpeed: 0.85, withGhz: true, gitCommit: '2222222' });
runB.environment.jdk = '21.0.6';
// A run "after a change" that dropped one cell, so Compare has something unmatched.
runB.cells = runB.cells.filter((c) => c.model !== 'open' || c.protocol !== 'grpc');

const partial = structuredClone(runA);
partial.runId = '20261120T080000Z-partial';
partial.startedAt = '2026-11-20T08:00:00Z';
partial.cells = partial.cells.slice(0, 6);
delete partial.cells[3].summary;

// The bench's own fixtures (loadtest/tests/fixtures): a realistic run, a truncated one, a newer schema.
const bench = join(here, '..', '..', 'loadtest', 'tests', 'fixtures');
const example = JSON.parse(readFileSync(join(bench, 'run-example.json'), 'utf8'));
const newer = JSON.parse(readFileSync(join(bench, 'run-newer-schema.json'), 'utf8'));
const malformedId = '20261121T070000Z-quick-broken';

const entry = (run, extra = {}) => ({
  runId: run.runId, path: `${run.runId}/run.json`, startedAt: run.startedAt, profile: run.profile.name,
  gitCommit: run.environment?.gitCommit ?? null, cellCount: run.cells?.length ?? 0, ...extra,
});

write(join(results, runA.runId, 'run.json'), JSON.stringify(runA));
write(join(results, runB.runId, 'run.json'), JSON.stringify(runB));
write(join(results, partial.runId, 'run.json'), JSON.stringify(partial));
for (const [id, file] of [[example.runId, 'run-example.json'], [newer.runId, 'run-newer-schema.json'], [malformedId, 'run-malformed.json']]) {
  mkdirSync(join(results, id), { recursive: true });
  copyFileSync(join(bench, file), join(results, id, 'run.json'));
}
write(
  join(results, 'index.json'),
  JSON.stringify(
    {
      schemaVersion: 1,
      runs: [
        entry(runB),
        entry(runA),
        entry(newer, { startedAt: '2026-11-23T07:00:00Z' }),
        entry(example),
        entry(example, { runId: malformedId, path: `${malformedId}/run.json`, startedAt: '2026-11-21T07:00:00Z' }),
        entry(partial),
      ],
    },
    null,
    2,
  ) + '\n',
);
mkdirSync(join(here, 'empty'), { recursive: true });
write(join(here, 'empty', '.gitkeep'), '');
console.log(`wrote ${results} (${runA.cells.length} + ${runB.cells.length} cells) and ${join(here, 'empty')}`);
