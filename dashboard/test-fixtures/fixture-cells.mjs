// The fixture's cells: a simple queueing model (CPU per request, capacity, latency under load)
// made into a cell as the bench writes one: windows with 250 ms timelines and flags, and the
// summary pooled over them. Part of test-fixtures/make-fixtures.mjs.
const INFORMATIONAL_FLAGS = new Set(['other-cpu', 'few-samples', 'jit']);

export function prng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

export const r4 = (x) => Math.round(x * 1e4) / 1e4;
export const r3 = (x) => Math.round(x * 1e3) / 1e3;
const r2 = (x) => Math.round(x * 100) / 100;
export const r1 = (x) => Math.round(x * 10) / 10;
export const median = (xs) => {
  const v = [...xs].sort((a, b) => a - b);
  const m = Math.floor(v.length / 2);
  return v.length % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
};
export const sum = (xs) => xs.reduce((a, b) => a + b, 0);

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

export function hitRatio(mode, temp) {
  if (mode === 'none') return { l1: null, l2: null, overall: null };
  const warm = temp === 'warm';
  if (mode === 'local') return { l1: warm ? 0.992 : 0.011, l2: null, overall: warm ? 0.992 : 0.011 };
  if (mode === 'redis') return { l1: null, l2: warm ? 0.989 : 0.008, overall: warm ? 0.989 : 0.008 };
  return { l1: warm ? 0.97 : 0.01, l2: warm ? 0.9 : 0.005, overall: warm ? 0.997 : 0.015 };
}

export function bodyBytes(protocol, op, n) {
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

/** Bytes on the wire per request, as k6 and h2load count them (ghz and oha count none). */
function wireBytes({ protocol, tool, op, n }) {
  if (tool !== 'k6' && tool !== 'h2load') return { wireBytesSentPerRequest: null, wireBytesReceivedPerRequest: null };
  return {
    wireBytesSentPerRequest: protocol === 'rest' ? 182 : 96,
    wireBytesReceivedPerRequest: bodyBytes(protocol, op, n) + (protocol === 'rest' ? 151 : 43),
  };
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

export const STARTS = 2;
export const ROUNDS = 2;
const SLICES = 12; // 3 s windows in 250 ms slices

function makeWindows(rand, spec, m, cellIndex) {
  const base = loadPoint(spec, m);
  const jit = (amount) => 1 + (rand() - 0.5) * 2 * amount;
  const latJitter = spec.c === 1 ? 0.06 : 0.03;
  const windows = [];
  // start and round count from 0, as the bench stores them (orchestrate.py); rep is the window's place, from 1
  for (let start = 0; start < STARTS; start++) {
    for (let round = 0; round < ROUNDS; round++) {
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
      // windows whose generator saturated, without drawing from the random sequence (the other fixtures stay as they are)
      if (spec.saturatedReps?.includes(rep)) flags.push({ code: 'generator-saturated', reason: 'generator used 97 % of its 1 core (≥ 95 %)' });
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
        ...wireBytes(spec),
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
  return {
    requests, ok, errors, errorRate: r4(errors / requests), samples: ok,
    throughputRps: intervalOf(windows.map((w) => w.throughputRps), r1),
    latencyMs: {
      mean: r4(p50 * Math.exp((sigma * sigma) / 2)), p50: r4(p50), p90: pooled(90), p95: pooled(95), p99: pooled(99),
      p999: pooled(99.9), p9999: pooled(99.99), max,
    },
    latencyIntervalMs: { p50: intervalOf(windows.map((w) => w.latencyMs.p50)), p99: intervalOf(windows.map((w) => w.latencyMs.p99)) },
    spectrum,
    bodyBytes: bodyBytes(spec.protocol, spec.op, spec.n),
    ...wireBytes(spec),
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

/** How the fixture's service splits its CPU by thread: Tomcat runs a request's reads and writes on the
 * carrier, Netty on its event loops; a hundredth is left to threads that ended within a window. */
const THREAD_SHARES = {
  rest: { carrier: 0.62, io: 0.3, gc: 0.03, jit: 0.01, other: 0.01, userShare: 0.4, switches: 2.9 },
  grpc: { carrier: 0.4, io: 0.52, gc: 0.03, jit: 0.01, other: 0.02, userShare: 0.45, switches: 1.3 },
};

/**
 * The cell with the service's CPU split by thread, as a bench from ab0c1c7 on records it (windows'
 * serviceThreads, the summary's totals per successful request); drawn from no random sequence, so
 * the run's other figures stay as they are.
 */
export function withThreadSplit(cell) {
  const share = THREAD_SHARES[cell.protocol];
  const service = cell.protocol === 'rest' ? 'rest-service' : 'grpc-service';
  const lettuce = cell.cacheMode === 'redis' || cell.cacheMode === 'hybrid' ? 0.01 : 0;
  const kinds = (ms) => ({
    carrier: r3(ms * (share.carrier - lettuce)), io: r3(ms * share.io), redis: r3(ms * lettuce),
    gc: r3(ms * share.gc), jit: r3(ms * share.jit), other: r3(ms * share.other),
  });
  const windows = cell.windows.map((w) => {
    const ms = w.cpuSeconds[service] * 1000;
    return {
      ...w,
      serviceThreads: {
        userCpuMs: r3(ms * share.userShare), systemCpuMs: r3(ms * (1 - share.userShare)),
        contextSwitches: Math.round(w.ok * share.switches), cpuMsByKind: kinds(ms),
      },
    };
  });
  const ok = sum(windows.map((w) => w.ok));
  const total = (f) => sum(windows.map((w) => f(w.serviceThreads)));
  const user = total((t) => t.userCpuMs);
  const system = total((t) => t.systemCpuMs);
  const byKind = Object.fromEntries(
    ['carrier', 'io', 'redis', 'gc', 'jit', 'other'].map((k) => [k, r2((total((t) => t.cpuMsByKind[k]) * 1000) / ok)]),
  );
  return {
    ...cell,
    windows,
    summary: {
      ...cell.summary,
      serviceThreads: {
        systemShare: r4(system / (user + system)), contextSwitchesPerRequest: r4(total((t) => t.contextSwitches) / ok),
        cpuUsPerRequestByKind: byKind,
      },
    },
  };
}

function cellId(s) {
  return [
    s.protocol, s.tool, s.op, ...(s.n === null ? [] : [`n${s.n}`]), s.mode, s.temp, `c${s.c}`,
    ...(s.model === 'open' ? [`r${s.rate}`] : []), ...(s.tls ? ['tls'] : []),
  ].join('-');
}

export function makeCell(rand, spec, index) {
  const m = cellModel(spec);
  const windows = makeWindows(rand, spec, m, index);
  const summary = summarise(spec, m, windows);
  const flags = [];
  // the bench's window flags as the cell's, naming the window from 1 (assemble.py)
  for (const w of windows) {
    for (const f of w.flags) flags.push({ code: f.code, reason: `start ${w.start + 1} round ${w.round + 1}: ${f.reason}` });
  }
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
    // as the bench (assemble.py: bool(run.eligible())): in the headline while any window has no
    // flag but other-cpu, few-samples or jit; its flagged windows are dropped, a cell-level flag drops none
    summary, flags, headlineEligible: windows.some((w) => w.flags.every((f) => INFORMATIONAL_FLAGS.has(f.code))),
  };
  return cell;
}
