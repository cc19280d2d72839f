// Writes the fixture results folders the tests use (deterministic; run again after changing it):
//   node test-fixtures/make-fixtures.mjs
// results/
//   20261125T090000Z-quick-2222222  run B, schemaVersion 2 ("after a change": gRPC faster, one cell gone)
//   20261124T100000Z-quick-1111111  run A, schemaVersion 2: 38 cells over both wires and k6/ghz/h2load,
//                                   2 service starts × 2 rounds = 4 windows per cell with 250 ms
//                                   timelines, one open-model rate sweep per wire with its knee,
//                                   headlines with each verdict, a ghz cell flagged generator-saturated,
//                                   a REST Hello cell with one window flagged other-cpu and generator-saturated, open cells
//                                   with dropped arrivals, and the decomposition's step ratios
//   20261123T070000Z-quick-b000000  run A as schemaVersion 3 (newer than the dashboard reads)
//   20261122T070000Z-quick-a262159  a schemaVersion 1 run (the older bench): listed, not read
//   20261121T070000Z-quick-broken   run A truncated (not valid JSON)
//   20261120T080000Z-partial        run A with a cell missing its summary
// empty/ has no index.json. The numbers are made up but shaped like a bench run (spec-run-v2.md):
// they follow a simple queueing model, they are not measurements.
import { mkdirSync, writeFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const INFORMATIONAL_FLAGS = new Set(['other-cpu', 'few-samples', 'jit']);
const here = dirname(fileURLToPath(import.meta.url));

function prng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const r4 = (x) => Math.round(x * 1e4) / 1e4;
const r3 = (x) => Math.round(x * 1e3) / 1e3;
const r2 = (x) => Math.round(x * 100) / 100;
const r1 = (x) => Math.round(x * 10) / 10;
const median = (xs) => {
  const v = [...xs].sort((a, b) => a - b);
  const m = Math.floor(v.length / 2);
  return v.length % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
};
const sum = (xs) => xs.reduce((a, b) => a + b, 0);

/** Inverse of the standard normal CDF (Acklam's approximation, |error| < 1.2e-9). */
function probit(p) {
  const a = [-39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716, 2.506628277459239];
  const b = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572];
  const c = [-0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783];
  const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];
  const lo = 0.02425;
  if (p < lo) {
    const q = Math.sqrt(-2 * Math.log(p));
    return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  }
  if (p > 1 - lo) return -probit(1 - p);
  const q = p - 0.5;
  const r = q * q;
  return ((((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q) / (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
}

const SPECTRUM_PERCENTILES = [
  0, 10, 20, 30, 40, 50, 60, 70, 75, 80, 85, 87.5, 90, 92.5, 95, 96.875, 97.5, 98.4375, 99, 99.21875, 99.5, 99.609375,
  99.8, 99.9, 99.95, 99.99, 99.995, 99.999,
];
/** A percentile needs 10 samples beyond it: p99 needs 1,000, p99.9 10,000, p99.99 100,000. */
const supported = (p, samples) => p < 100 && 1 / (1 - p / 100) <= samples / 10;

// ---------- the model ----------

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

/** CPU µs per request of the service, MariaDB and Redis, and the generator. */
function cpuModel({ protocol, tool, op, n, mode, temp, speed }) {
  const dbHit = op !== 'Hello' && (mode === 'none' || temp === 'cold');
  const perRow = op === 'ListGroups' ? (protocol === 'rest' ? 1.5 : 1.0) * n : 0;
  const service = (op === 'Hello' ? (protocol === 'rest' ? 45 : 31) : (protocol === 'rest' ? 88 : 86.5 * speed)) + perRow;
  const mariadb = op === 'Hello' ? 0 : dbHit ? 68 + (op === 'ListGroups' ? 2 * n : 0) : 0.6;
  const redis = op === 'Hello' || mode === 'none' || mode === 'local' ? 0 : temp === 'cold' ? 12 : mode === 'redis' ? 9 : 0.4;
  const generator = { k6: 30, ghz: 22, h2load: 6, oha: 12 }[tool];
  return { service, mariadb, redis, generator, dbHit };
}

const TLS_LATENCY = { rest: 1.18, grpc: 1.03 };

/** Unloaded p50 (ms), capacity (req/s) and the load it is under. */
function cellModel(spec) {
  const { protocol, tool, op, mode, temp, tls } = spec;
  const cpu = cpuModel(spec);
  const server = cpu.service + cpu.mariadb + cpu.redis;
  const capacity = 0.95e6 / server; // the services and the databases share one core
  const client = (protocol === 'rest' ? 0.3 : 0.22 * spec.speed) * { k6: 1, ghz: 0.95, h2load: 0.88, oha: 0.95 }[tool];
  let p50 = client + server / 1000 + (cpu.dbHit ? 0.35 : 0) + (op !== 'Hello' && (mode === 'redis' || (mode === 'hybrid' && temp === 'cold')) ? 0.1 : 0);
  if (tls) p50 *= TLS_LATENCY[protocol];
  return { cpu, server, capacity, p50 };
}

/** Per-window figures of a cell (before jitter): throughput, p50, p99, dropped arrivals. */
function loadPoint(spec, m) {
  if (spec.model === 'closed') {
    const ideal = (spec.c / m.p50) * 1000;
    if (ideal < m.capacity * 0.9) {
      const rho = ideal / m.capacity;
      const p50 = m.p50 * (1 + 0.25 * rho);
      return { throughput: (spec.c / p50) * 1000, p50, p99: p50 * (2.2 + 1.5 * rho), achieved: null, dropped: null };
    }
    const throughput = m.capacity * 0.93;
    const p50 = ((spec.c / throughput) * 1000) * 0.9;
    return { throughput, p50, p99: p50 * 3.1, achieved: null, dropped: null };
  }
  const rho = spec.rate / m.capacity;
  if (rho < 0.97) {
    const p50 = m.p50 / (1 - rho * 0.85);
    return { throughput: spec.rate * 0.999, p50, p99: p50 * (2.5 + 4 * rho * rho), achieved: spec.rate * 0.999, dropped: 0 };
  }
  // overloaded: arrivals the generator could not start are dropped, latency is the queue
  const throughput = m.capacity * 0.97;
  return { throughput, p50: 38 + 40 * (rho - 1), p99: 310 + 200 * (rho - 1), achieved: throughput, dropped: (spec.rate - throughput) * 3 };
}

const STARTS = 2;
const ROUNDS = 2;
const SLICES = 12; // 3 s windows in 250 ms slices

function makeWindows(rand, spec, m, cellIndex) {
  const base = loadPoint(spec, m);
  const jit = (amount) => 1 + (rand() - 0.5) * 2 * amount;
  const latJitter = spec.c === 1 ? 0.06 : 0.03;
  const windows = [];
  for (let start = 0; start < STARTS; start++) {
    for (let round = 1; round <= ROUNDS; round++) {
      const rep = windows.length + 1;
      const seconds = r2(3 + rand() * 0.03);
      const throughput = base.throughput * jit(0.03);
      const requestsTarget = Math.round(throughput * seconds);
      const errors = spec.errors ? Math.round(requestsTarget * spec.errors) : 0;
      const ok = requestsTarget - errors;
      const p50 = base.p50 * jit(latJitter);
      const p99 = base.p99 * jit(latJitter * 2);
      const flags = [];
      const cores = ((spec.saturate ?? 0) > 0 ? spec.saturate * jit(0.01) : (throughput * m.cpu.generator) / 1e6);
      if (cores >= 0.95) flags.push({ code: 'generator-saturated', reason: `generator used ${Math.round(cores * 100)} % of its 1 core (≥ 95 %)` });
      const other = spec.otherCpuRep === rep ? 0.31 : 0.02 + rand() * 0.03;
      if (other > 0.2) flags.push({ code: 'other-cpu', reason: `processes outside the bench used ${other.toFixed(2)} cores (> 0.2)` });
      // a window whose generator saturated, without drawing from the random sequence (the other fixtures stay as they are)
      if (spec.saturatedRep === rep) flags.push({ code: 'generator-saturated', reason: 'generator used 97 % of its 1 core (≥ 95 %)' });
      const dropped = base.dropped === null ? null : Math.round(base.dropped * jit(0.05));
      const achieved = base.achieved === null ? null : r1(base.achieved * jit(0.002));
      if (dropped !== null && dropped > 0.01 * spec.rate * seconds) {
        flags.push({ code: 'dropped-arrivals', reason: `${dropped.toLocaleString('en-US')} arrivals not started (${((dropped / (spec.rate * seconds)) * 100).toFixed(1)} % of the target, > 1 %)` });
      }
      if (achieved !== null && achieved < 0.95 * spec.rate) {
        flags.push({ code: 'rate-short', reason: `achieved ${Math.round(achieved).toLocaleString('en-US')}/s of the ${spec.rate.toLocaleString('en-US')}/s target (< 95 %)` });
      }
      const serverUs = m.server * jit(0.035);
      const hit = hitRatio(spec.op === 'Hello' ? 'none' : spec.mode, spec.temp);
      const cpuS = (us) => r4((us * ok) / 1e6);
      const timeline = [];
      for (let k = 0; k < SLICES; k++) {
        // a cold cache fills during the window: early slices are slower
        const cold = spec.temp === 'cold' ? 1 + 0.8 * Math.exp(-k / 2) : 1;
        // one GC pause in the second window of cell 2 (REST hybrid warm, 50 users) (a spike in p99, not a flag)
        const gc = cellIndex === 2 && rep === 2 && k === 7 ? 6 : 1;
        timeline.push({
          t: r2((k + 1) * 0.25),
          rps: r1(throughput * jit(0.05) / (cold > 1.3 ? 1.2 : 1)),
          p50: r4(p50 * cold * jit(0.04)),
          p99: r4(p99 * cold * gc * jit(0.1)),
        });
      }
      windows.push({
        start, round, order: 0, seconds,
        requests: requestsTarget, ok, errors,
        throughputRps: r1(ok / seconds),
        latencyMs: { p50: r4(p50), p99: r4(p99), max: r3(p99 * (3 + rand() * 2)) },
        droppedIterations: dropped,
        achievedRate: achieved,
        hitRatio: { ...hit },
        cpuSeconds: {
          'rest-service': spec.protocol === 'rest' ? cpuS(m.cpu.service * (serverUs / m.server)) : r4(0.01 * seconds),
          'grpc-service': spec.protocol === 'grpc' ? cpuS(m.cpu.service * (serverUs / m.server)) : r4(0.01 * seconds),
          mariadb: cpuS(m.cpu.mariadb * (serverUs / m.server)),
          redis: spec.mode === 'redis' || spec.mode === 'hybrid' ? cpuS(m.cpu.redis * (serverUs / m.server)) : null,
          generator: r4(cores * seconds),
          other: r4(other * seconds),
        },
        generatorCores: r4(cores),
        jvm: { gcPauseMs: r2(3 + rand() * 4 + (cellIndex === 2 && rep === 2 ? 41 : 0)), gcPauses: 2 + Math.floor(rand() * 3), jitMs: r1(rep === 1 ? 180 : 20 + rand() * 10) },
        db: { rowsRead: m.cpu.dbHit ? ok * (spec.op === 'ListGroups' ? spec.n : 1) : Math.round(ok * 0.003), queries: m.cpu.dbHit ? ok : Math.round(ok * 0.003) },
        timeline,
        flags,
        _serverUs: serverUs,
        _p50: p50,
        _p99: p99,
      });
    }
  }
  return windows;
}

/** A bootstrap-like 95 % interval of the median over windows (the fixture's stand-in). */
function intervalOf(values, digits = r4) {
  if (values.length < 2) return { value: digits(values[0]), low: null, high: null };
  const v = [...values].sort((a, b) => a - b);
  const spread = v.at(-1) - v[0];
  return { value: digits(median(v)), low: digits(v[0] + spread * 0.05), high: digits(v.at(-1) - spread * 0.05) };
}

function summarise(spec, m, windows) {
  const ok = sum(windows.map((w) => w.ok));
  const requests = sum(windows.map((w) => w.requests));
  const errors = sum(windows.map((w) => w.errors));
  const p50 = median(windows.map((w) => w._p50));
  const p99 = median(windows.map((w) => w._p99));
  // pooled latency: log-normal through p50 and p99
  const sigma = Math.log(p99 / p50) / 2.3263;
  const q = (p) => p50 * Math.exp(sigma * probit(p / 100));
  const spectrum = [];
  let last = 0;
  for (const p of SPECTRUM_PERCENTILES) {
    if (!supported(p, ok)) continue;
    const ms = p === 0 ? p50 * Math.exp(-2.8 * sigma) : q(p);
    const v = Math.max(r4(ms), r4(last + 0.0001));
    spectrum.push({ percentile: p, ms: v });
    last = v;
  }
  const pooled = (p) => (supported(p, ok) ? r4(q(p)) : null);
  const max = r3(Math.max(...windows.map((w) => w.latencyMs.max)));
  const serverUs = windows.map((w) => w._serverUs);
  const scale = median(serverUs) / m.server;
  const hit = hitRatio(spec.op === 'Hello' ? 'none' : spec.mode, spec.temp);
  const dropped = spec.model === 'open' ? sum(windows.map((w) => w.droppedIterations)) : null;
  const achieved = spec.model === 'open' ? r1(median(windows.map((w) => w.achievedRate))) : null;
  const body = bodyBytes(spec.protocol, spec.op, spec.n);
  const wire = spec.tool === 'k6' || spec.tool === 'h2load';
  return {
    requests, ok, errors, errorRate: r4(errors / requests), samples: ok,
    throughputRps: intervalOf(windows.map((w) => w.throughputRps), r1),
    latencyMs: {
      mean: r4(p50 * Math.exp((sigma * sigma) / 2)), p50: r4(p50), p90: pooled(90), p95: pooled(95), p99: pooled(99),
      p999: pooled(99.9), p9999: pooled(99.99), max,
    },
    latencyIntervalMs: { p50: intervalOf(windows.map((w) => w.latencyMs.p50)), p99: intervalOf(windows.map((w) => w.latencyMs.p99)) },
    spectrum,
    bodyBytes: body,
    wireBytesSentPerRequest: wire ? (spec.protocol === 'rest' ? 182 : 96) : null,
    wireBytesReceivedPerRequest: wire ? body + (spec.protocol === 'rest' ? 151 : 43) : null,
    hitRatio: hit,
    cpuUsPerRequest: {
      service: r2(m.cpu.service * scale),
      mariadb: r2(m.cpu.mariadb * scale),
      redis: spec.mode === 'redis' || spec.mode === 'hybrid' ? r2(m.cpu.redis * scale) : null,
      generator: r2(median(windows.map((w) => (w.generatorCores * w.seconds * 1e6) / w.ok))),
      server: intervalOf(serverUs, r2),
    },
    generatorCores: r4(median(windows.map((w) => w.generatorCores))),
    jvm: { gcPauseMs: r2(sum(windows.map((w) => w.jvm.gcPauseMs))), jitMs: r1(sum(windows.map((w) => w.jvm.jitMs))) },
    db: {
      rowsReadPerRequest: r4(sum(windows.map((w) => w.db.rowsRead)) / ok),
      queriesPerRequest: r4(sum(windows.map((w) => w.db.queries)) / ok),
    },
    droppedIterations: dropped,
    achievedRate: achieved,
  };
}

function cellId(s) {
  return [
    s.protocol, s.tool, s.op, ...(s.n === null ? [] : [`n${s.n}`]), s.mode, s.temp, `c${s.c}`,
    ...(s.model === 'open' ? [`r${s.rate}`] : []), ...(s.tls ? ['tls'] : []),
  ].join('-');
}

function makeCell(rand, spec, index) {
  const m = cellModel(spec);
  const windows = makeWindows(rand, spec, m, index);
  const summary = summarise(spec, m, windows);
  const flags = [];
  windows.forEach((w, i) => {
    for (const f of w.flags) flags.push({ code: f.code, reason: `rep ${i + 1}: ${f.reason}` });
  });
  if (spec.mode !== 'none' && spec.op !== 'Hello') {
    const overall = summary.hitRatio.overall;
    if (spec.temp === 'cold' && overall >= 0.1) flags.push({ code: 'hit-ratio', reason: `cold cell hit ${overall} of reads (≥ 0.1)` });
    if (spec.temp === 'warm' && overall <= 0.9) flags.push({ code: 'hit-ratio', reason: `warm cell hit ${overall} of reads (≤ 0.9)` });
  }
  const cell = {
    id: cellId(spec),
    protocol: spec.protocol, tool: spec.tool,
    transport: spec.protocol === 'grpc' ? 'h2' : 'http1',
    operation: spec.op, pageSize: spec.n, cacheMode: spec.mode, temperature: spec.temp,
    model: spec.model, concurrency: spec.c, connections: spec.c,
    targetRate: spec.model === 'open' ? spec.rate : null,
    durationSeconds: 3, warmupSeconds: 1, repetitions: ROUNDS, starts: STARTS, tls: spec.tls,
    sweep: spec.sweep ?? null, role: spec.role,
    windows: windows.map(({ _serverUs, _p50, _p99, ...w }) => w),
    // as the bench: other-cpu and few-samples are shown but keep no window out of the headline
    summary, flags, headlineEligible: flags.every((f) => INFORMATIONAL_FLAGS.has(f.code)),
  };
  return cell;
}

// ---------- a v2 run ----------

function profileSpecs({ withTlsGrpc = true } = {}) {
  const specs = [];
  const add = (protocol, tool, op, n, mode, temp, c, role, extra = {}) =>
    specs.push({ protocol, tool, op, n, mode, temp, c, role, model: 'closed', tls: false, ...extra });
  for (const p of ['rest', 'grpc']) {
    add(p, 'k6', 'GetGroup', null, 'hybrid', 'warm', 1, 'latency');
    add(p, 'k6', 'GetGroup', null, 'hybrid', 'warm', 10, 'latency');
    add(p, 'k6', 'GetGroup', null, 'hybrid', 'warm', 50, 'throughput');
    add(p, 'k6', 'GetGroup', null, 'local', 'warm', 50, 'throughput');
    add(p, 'k6', 'GetGroup', null, 'redis', 'warm', 50, 'throughput');
    add(p, 'k6', 'GetGroup', null, 'hybrid', 'cold', 50, 'cold');
    add(p, 'k6', 'GetGroup', null, 'none', 'none', 50, 'reference');
    add(p, 'k6', 'Hello', null, 'none', 'none', 50, 'reference', p === 'rest' ? { otherCpuRep: 2, saturatedRep: 2 } : {});
    for (const n of [1, 10, 50]) add(p, 'k6', 'ListGroups', n, 'hybrid', 'warm', 10, 'latency');
    if (p === 'rest' || withTlsGrpc) add(p, 'k6', 'GetGroup', null, 'hybrid', 'warm', 1, 'latency', { tls: true });
  }
  // the single-wire specialists at the throughput point; ghz saturates its core
  add('rest', 'h2load', 'GetGroup', null, 'hybrid', 'warm', 50, 'throughput');
  add('grpc', 'ghz', 'GetGroup', null, 'hybrid', 'warm', 50, 'throughput', { saturate: 0.97 });
  // open-model rate sweeps, one per wire
  const sweeps = { rest: [1000, 2000, 4000, 6000, 8000, 10000, 11000], grpc: [1000, 2000, 4000, 8000, 12000, 16000] };
  for (const [p, rates] of Object.entries(sweeps)) {
    for (const rate of rates) {
      add(p, 'k6', 'GetGroup', null, 'hybrid', 'warm', 200, 'sweep', { model: 'open', rate, sweep: `sweep-${p}-k6-GetGroup-hybrid-warm` });
    }
  }
  return specs;
}

function makeSweeps(cells) {
  const ids = [...new Set(cells.map((c) => c.sweep).filter(Boolean))];
  return ids.map((id) => {
    const points = cells.filter((c) => c.sweep === id).sort((a, b) => a.targetRate - b.targetRate);
    const c0 = points[0];
    const limits = { p99Ms: 50, dropRate: 0.01 };
    let knee = null;
    const pts = points.map((c) => {
      const s = c.summary;
      const p = {
        cellId: c.id, targetRate: c.targetRate, achievedRate: s.achievedRate, throughputRps: s.throughputRps.value,
        p50: s.latencyMs.p50, p99: s.latencyMs.p99, p999: s.latencyMs.p999,
        droppedIterations: s.droppedIterations, errorRate: s.errorRate, flags: c.flags,
      };
      const dropRate = s.droppedIterations / (c.targetRate * sum(c.windows.map((w) => w.seconds)));
      if (!knee && (p.p99 > limits.p99Ms || dropRate > limits.dropRate)) {
        const rate = c.targetRate.toLocaleString('en-US');
        knee = {
          targetRate: c.targetRate, throughputRps: p.throughputRps,
          reason: p.p99 > limits.p99Ms ? `p99 rose above ${limits.p99Ms} ms at ${rate}/s` : `more than 1 % of arrivals dropped at ${rate}/s`,
        };
      }
      return p;
    });
    return {
      id, protocol: c0.protocol, tool: c0.tool, operation: c0.operation, pageSize: c0.pageSize, cacheMode: c0.cacheMode,
      temperature: c0.temperature, tls: c0.tls, limits, points: pts, knee,
    };
  });
}

function makeFits(cells) {
  const fits = [];
  for (const p of ['rest', 'grpc']) {
    const sweep = cells
      .filter((c) => c.protocol === p && c.tool === 'k6' && c.operation === 'ListGroups' && c.concurrency === 10 && !c.tls)
      .sort((a, b) => a.pageSize - b.pageSize);
    const pts = sweep.map((c) => ({ pageSize: c.pageSize, latencyMs: c.summary.latencyMs.p50 }));
    if (pts.length < 2) continue;
    const n = pts.length;
    const mx = sum(pts.map((q) => q.pageSize)) / n;
    const my = sum(pts.map((q) => q.latencyMs)) / n;
    const b = sum(pts.map((q) => (q.pageSize - mx) * (q.latencyMs - my))) / sum(pts.map((q) => (q.pageSize - mx) ** 2));
    const a = my - b * mx;
    const ssTot = sum(pts.map((q) => (q.latencyMs - my) ** 2));
    const ssRes = sum(pts.map((q) => (q.latencyMs - a - b * q.pageSize) ** 2));
    fits.push({
      protocol: p, tool: 'k6', cacheMode: 'hybrid', temperature: 'warm', concurrency: 10, tls: false, operation: 'ListGroups',
      metric: 'p50', a: r4(a), b: Math.round(b * 1e6) / 1e6, r2: r4(1 - ssRes / ssTot), points: pts, cellIds: sweep.map((c) => c.id),
    });
  }
  return fits;
}

/** A headline from cell pairs: ratio of a figure with a (conservative) interval, and its verdict. */
function headline(description, pairs, pick, { exact = false, missingWhy = null } = {}) {
  const made = pairs.map(([num, den]) => {
    const a = pick(num);
    const b = pick(den);
    const ratio = a.value / b.value;
    const excluded = !num.headlineEligible || !den.headlineEligible;
    const why = [num, den].filter((c) => !c.headlineEligible).map((c) => `${c.id} is flagged (${[...new Set(c.flags.map((f) => f.code))].join(', ')})`);
    return {
      numeratorCellId: num.id, denominatorCellId: den.id, ratio,
      low: exact || a.low === null ? null : a.low / b.high,
      high: exact || a.high === null ? null : a.high / b.low,
      excluded, excludedWhy: excluded ? why.join('; ') : null,
    };
  });
  if (made.length === 0) {
    return { description, value: null, low: null, high: null, verdict: 'missing', reason: missingWhy, pairs: [] };
  }
  const eligible = made.filter((p) => !p.excluded);
  const used = eligible.length > 0 ? eligible : made;
  const value = median(used.map((p) => p.ratio));
  const low = used[0].low === null ? null : median(used.map((p) => p.low));
  const high = used[0].high === null ? null : median(used.map((p) => p.high));
  if (eligible.length === 0) {
    return {
      description, value, low, high, verdict: 'flagged',
      reason: `only flagged cell pairs were available (${made.map((p) => p.excludedWhy).join('; ')}); the value is computed from them anyway`,
      pairs: made,
    };
  }
  if (low !== null && low <= 1 && high >= 1) {
    return {
      description, value, low, high, verdict: 'inconclusive',
      reason: `the 95 % interval ${low.toFixed(2)}–${high.toFixed(2)} includes 1: no difference shown`,
      pairs: made,
    };
  }
  return { description, value, low, high, verdict: 'finding', reason: null, pairs: made };
}

function makeHeadlines(cells) {
  const find = (q) => cells.find((c) => Object.entries(q).every(([k, v]) => c[k] === v));
  const get = (protocol, c, extra = {}) =>
    find({ protocol, tool: 'k6', operation: 'GetGroup', cacheMode: 'hybrid', temperature: 'warm', concurrency: c, model: 'closed', tls: false, ...extra });
  const p50 = (c) => c.summary.latencyIntervalMs.p50;
  const tput = (c) => c.summary.throughputRps;
  const cpu = (c) => c.summary.cpuUsPerRequest.server;
  const body = (c) => ({ value: c.summary.bodyBytes, low: null, high: null });
  const pair = (a, b) => (a && b ? [[a, b]] : []);
  const noTls = 'no TLS cell at 50 users in this profile (TLS is measured at 1 user only)';
  return {
    grpcOverRestP50Warm: headline('gRPC p50 ÷ REST p50, warm hybrid GetGroup at 1 user, k6 on both wires', pair(get('grpc', 1), get('rest', 1)), p50),
    grpcOverRestThroughputWarm: headline(
      'gRPC ÷ REST throughput, warm hybrid GetGroup at 50 users: k6 on both wires, and ghz ÷ h2load',
      [...pair(get('grpc', 50), get('rest', 50)), ...pair(get('grpc', 50, { tool: 'ghz' }), get('rest', 50, { tool: 'h2load' }))],
      tput,
    ),
    grpcOverRestServerCpuPerRequest: headline('gRPC ÷ REST server CPU per request (service + MariaDB + Redis), warm hybrid GetGroup at 50 users, k6', pair(get('grpc', 50), get('rest', 50)), cpu),
    warmHybridOverNoneThroughput: headline(
      'warm hybrid ÷ no-cache throughput, GetGroup at 50 users, k6, each wire',
      [...pair(get('rest', 50), get('rest', 50, { cacheMode: 'none', temperature: 'none' })), ...pair(get('grpc', 50), get('grpc', 50, { cacheMode: 'none', temperature: 'none' }))],
      tput,
    ),
    jsonOverProtobufBodyBytes: headline('GetGroup response body, measured offline the same way on both wires (exact: no interval)', pair(get('rest', 50), get('grpc', 50)), body, { exact: true }),
    getGroupOverHelloThroughput: headline(
      'GetGroup (warm hybrid) ÷ Hello throughput, REST via k6 at 50 users',
      pair(get('rest', 50), find({ protocol: 'rest', tool: 'k6', operation: 'Hello', concurrency: 50 })),
      tput,
    ),
    tlsOverPlainP50Rest: headline('REST over HTTPS ÷ plain p50, warm hybrid GetGroup at 1 user, k6', pair(get('rest', 1, { tls: true }), get('rest', 1)), p50),
    tlsOverPlainP50Grpc: headline('gRPC over TLS ÷ plain p50, warm hybrid GetGroup at 1 user, k6', pair(get('grpc', 1, { tls: true }), get('grpc', 1)), p50, { missingWhy: 'no gRPC TLS cell in this run' }),
    tlsOverPlainThroughputRest: headline('REST over HTTPS ÷ plain throughput at 50 users, k6', pair(get('rest', 50, { tls: true }), get('rest', 50)), tput, { missingWhy: noTls }),
    tlsOverPlainThroughputGrpc: headline('gRPC over TLS ÷ plain throughput at 50 users, k6', pair(get('grpc', 50, { tls: true }), get('grpc', 50)), tput, { missingWhy: noTls }),
  };
}

/**
 * The decomposition's step ratios (headline step*, gzip*) as the protocols profile writes them:
 * made-up values with intervals, one step inconclusive, so that the view has a grey bar to draw.
 */
function makeStepHeadlines(cells) {
  const id = (q) => cells.find((c) => Object.entries(q).every(([k, v]) => c[k] === v)).id;
  const restCell = id({ protocol: 'rest', tool: 'h2load', operation: 'GetGroup' });
  const grpcCell = id({ protocol: 'grpc', tool: 'k6', operation: 'GetGroup', concurrency: 50, cacheMode: 'hybrid', temperature: 'warm', tls: false });
  const given = (description, value, low, high) => {
    const inconclusive = low <= 1 && high >= 1;
    return {
      description, value, low, high, verdict: inconclusive ? 'inconclusive' : 'finding',
      reason: inconclusive ? `the 95 % interval [${low}, ${high}] includes 1: no difference shown` : null,
      pairs: [{ numeratorCellId: grpcCell, denominatorCellId: restCell, ratio: value, low, high, excluded: false, excludedWhy: null }],
    };
  };
  return {
    stepEncodingServerCpu: given('REST Protobuf ÷ JSON over HTTP/1.1, uncompressed: server CPU per request', 0.87, 0.82, 0.93),
    stepHttp2ServerCpu: given('REST over HTTP/2 ÷ HTTP/1.1, Protobuf, uncompressed: server CPU per request', 0.9, 0.78, 1.04),
    stepGrpcServerCpu: given('gRPC ÷ REST Protobuf over HTTP/2, uncompressed: server CPU per request', 0.52, 0.47, 0.58),
    stepEncodingThroughput: given('REST Protobuf ÷ JSON over HTTP/1.1, uncompressed: successful requests per second', 1.12, 1.05, 1.2),
    stepHttp2Throughput: given('REST over HTTP/2 ÷ HTTP/1.1, Protobuf, uncompressed: successful requests per second', 1.31, 1.2, 1.42),
    stepGrpcThroughput: given('gRPC ÷ REST Protobuf over HTTP/2, uncompressed: successful requests per second', 1.63, 1.5, 1.77),
    gzipOverIdentityServerCpuRest: given('REST server CPU per request when the client asks for gzip ÷ when it asks for nothing', 1.74, 1.61, 1.9),
    gzipOverIdentityServerCpuGrpc: given('gRPC server CPU per request of calls that ask for gzip ÷ calls that do not', 2.08, 1.9, 2.3),
    revalidatedOverFullServerCpu: given('REST GetGroup server CPU per request answered 304 ÷ 200', 0.81, 0.76, 0.86),
    revalidatedOverFullThroughput: given('REST GetGroup throughput answered 304 ÷ 200', 1.19, 1.1, 1.28),
    // one goal of each status: met (interval ≤ 1.1), not met (interval > 1.1), undecided (holds 0.9)
    getGroupOverHelloServerCpuGrpc: given('gRPC warm GetGroup server CPU per request ÷ the hello-world\'s', 0.9, 0.85, 0.95),
    getGroupOverHelloServerCpuRest: given('REST warm GetGroup server CPU per request ÷ the hello-world\'s', 1.24, 1.18, 1.3),
    users500Over50ThroughputRest: given('REST warm ListGroups throughput at 500 users ÷ at 50', 0.93, 0.86, 0.98),
  };
}

function makeRun({ runId, startedAt, seed, grpcSpeed, gitCommit, jdk = 'OpenJDK 21.0.9', withTlsGrpc = true, withSteps = false }) {
  const rand = prng(seed);
  const specs = profileSpecs({ withTlsGrpc }).map((s) => ({ ...s, speed: s.protocol === 'grpc' ? grpcSpeed : 1 }));
  const cells = specs.map((s, i) => makeCell(rand, s, i));
  // run order: the cells interleaved per service start, as the bench runs them
  let order = 0;
  for (let start = 0; start < STARTS; start++) {
    for (let round = 1; round <= ROUNDS; round++) {
      for (const c of cells) {
        const w = c.windows.find((x) => x.start === start && x.round === round);
        w.order = order++;
      }
    }
  }
  const finished = new Date(Date.parse(startedAt) + 47 * 60 * 1000).toISOString().replace('.000Z', 'Z');
  return {
    schemaVersion: 2,
    runId,
    startedAt,
    finishedAt: finished,
    profile: {
      name: 'quick',
      description: 'Fixture profile: GetGroup at 1, 10 and 50 users, each cache state at 50, a page-size sweep, TLS at 1 user, one rate sweep per wire',
      durationSeconds: 3, warmupSeconds: 1, repetitions: ROUNDS, starts: STARTS, tools: ['k6', 'ghz', 'h2load'],
    },
    environment: {
      cpuModel: 'AMD EPYC 7B13', cores: 2, memoryBytes: 25769803776, os: 'Debian GNU/Linux 13 (trixie)', kernel: '6.12.48-1-amd64',
      jdk, springBoot: '4.1.0', grpcJava: '1.76.0', redis: '7.4.6', mariadb: '11.8.3', k6: 'v1.8.1', ghz: 'v0.120.0', h2load: '1.64.0', oha: null,
      gitCommit, gitDirty: false, loadGeneratorNote: 'same machine as the services; the generator pinned to CPU 1',
      placement: { method: 'taskset', services: '0', servers: '0', generator: '1', note: 'services, MariaDB and Redis on CPU 0; the load generator on CPU 1' },
      jvm: { options: ['-Xms512m', '-Xmx512m', '-XX:ActiveProcessorCount=1'], heapMaxBytes: 536870912 },
    },
    cells,
    sweeps: makeSweeps(cells),
    fits: makeFits(cells),
    headline: { ...makeHeadlines(cells), ...(withSteps ? makeStepHeadlines(cells) : {}) },
    notes: ['Fixture data for the dashboard tests: made-up numbers shaped like a quick run (schemaVersion 2).'],
  };
}

// ---------- a v1 run (the older bench) ----------

function makeV1Run({ runId, startedAt, gitCommit }) {
  const rand = prng(7);
  const cells = [];
  for (const [protocol, tool] of [['rest', 'k6'], ['grpc', 'k6']]) {
    for (const [mode, temp] of [['none', 'none'], ['hybrid', 'cold'], ['hybrid', 'warm']]) {
      for (const c of [1, 10, 50]) {
        const p50 = (protocol === 'rest' ? 0.42 : 0.31) * (mode === 'none' ? 4 : temp === 'cold' ? 5.5 : 1.05) * (1 + c / 12) * (1 + (rand() - 0.5) * 0.06);
        const m = {
          requests: Math.round((c / p50) * 10000), errors: 0, errorRate: 0, throughputRps: r1((c / p50) * 1000),
          latencyMs: { mean: r3(p50 * 1.12), p50: r3(p50), p90: r3(p50 * 1.6), p95: r3(p50 * 1.9), p99: r3(p50 * 2.8), p999: r3(p50 * 4.5), max: r3(p50 * 9) },
          bodyBytes: bodyBytes(protocol, 'GetGroup', null), wireBytesSentPerRequest: null, wireBytesReceivedPerRequest: null,
          hitRatio: hitRatio(mode, temp), loadGenCpuSeconds: 4, loadGenCpuPercent: 40, droppedIterations: null, achievedRate: null,
        };
        cells.push({
          id: [protocol, tool, 'GetGroup', mode, temp, `c${c}`].join('-'), protocol, tool, operation: 'GetGroup', pageSize: null,
          cacheMode: mode, temperature: temp, model: 'closed', concurrency: c, connections: c, targetRate: null,
          durationSeconds: 10, warmupSeconds: 3, repetitions: 2, runs: [m, m], summary: m,
        });
      }
    }
  }
  return {
    schemaVersion: 1, runId, startedAt, finishedAt: startedAt.replace('T07', 'T08'),
    profile: { name: 'quick', durationSeconds: 10, warmupSeconds: 3, repetitions: 2 },
    environment: { cpuModel: 'AMD EPYC 7B13', cores: 2, jdk: '21.0.5', gitCommit, gitDirty: false },
    cells, fits: [],
    headline: { grpcOverRestP50Warm: 0.7381, warmHybridOverNoneThroughput: 3.48 },
    headlineDetail: { grpcOverRestP50Warm: { description: 'gRPC p50 ÷ REST p50', pairs: [], reason: null } },
    notes: ['Fixture: a run recorded by the older bench (schemaVersion 1).'],
  };
}

// ---------- writing ----------

function write(path, text) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

const results = join(here, 'results');
rmSync(results, { recursive: true, force: true });

const runA = makeRun({ runId: '20261124T100000Z-quick-1111111', startedAt: '2026-11-24T10:00:00Z', seed: 1, grpcSpeed: 1, gitCommit: '1111111', withSteps: true });
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

const entry = (run, extra = {}) => ({
  runId: run.runId, path: `${run.runId}/run.json`, startedAt: run.startedAt, profile: run.profile.name,
  gitCommit: run.environment?.gitCommit ?? null, cellCount: run.cells?.length ?? 0, ...extra,
});

for (const run of [runA, runB, newer, older, partial]) write(join(results, run.runId, 'run.json'), JSON.stringify(run));
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
      ],
    },
    null,
    2,
  ) + '\n',
);
mkdirSync(join(here, 'empty'), { recursive: true });
write(join(here, 'empty', '.gitkeep'), '');
console.log(`wrote ${results} (${runA.cells.length} + ${runB.cells.length} cells) and ${join(here, 'empty')}`);
