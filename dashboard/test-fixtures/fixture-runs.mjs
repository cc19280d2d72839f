// The fixture's runs: the profile's cells (fixture-cells.mjs) with the rate sweeps, the A + B·N fits
// and the headline ratios a bench run has; and a run as the older bench (schemaVersion 1) wrote it.
// Part of test-fixtures/make-fixtures.mjs.
import { bodyBytes, hitRatio, makeCell, median, prng, r1, r3, r4, ROUNDS, STARTS, sum, withThreadSplit } from './fixture-cells.mjs';

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
    // one window flagged: the cell stays in the headline without it
    add(p, 'k6', 'Hello', null, 'none', 'none', 50, 'reference', p === 'rest' ? { otherCpuRep: 2, saturatedReps: [2] } : {});
    for (const n of [1, 10, 50]) add(p, 'k6', 'ListGroups', n, 'hybrid', 'warm', 10, 'latency');
    // REST's every window flagged: left out of the headline, whose only pair it is in (a flagged verdict)
    if (p === 'rest' || withTlsGrpc) add(p, 'k6', 'GetGroup', null, 'hybrid', 'warm', 1, 'latency', { tls: true, ...(p === 'rest' ? { saturatedReps: [1, 2, 3, 4] } : {}) });
  }
  // the single-wire specialists at the throughput point; ghz saturates its core
  add('rest', 'oha', 'GetGroup', null, 'hybrid', 'warm', 50, 'throughput');
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
    const pts = points.map((c) => {
      const s = c.summary;
      return {
        cellId: c.id, targetRate: c.targetRate, achievedRate: s.achievedRate, throughputRps: s.throughputRps.value,
        p50: s.latencyMs.p50, p99: s.latencyMs.p99, p999: s.latencyMs.p999,
        droppedIterations: s.droppedIterations, errorRate: s.errorRate, flags: c.flags,
      };
    });
    // as the bench (assemble.py sweep_records): the knee is the last rate within the limits, when a
    // later one broke them (p99, dropped arrivals over what was due, or the rate fell short)
    let knee = null;
    let good = null;
    for (const [i, p] of pts.entries()) {
      const c = points[i];
      const dropRate = (p.droppedIterations ?? 0) / Math.max(c.targetRate * c.durationSeconds * Math.max(1, c.windows.length), 1);
      const highP99 = p.p99 !== null && p.p99 > limits.p99Ms;
      if (highP99 || dropRate > limits.dropRate || (p.achievedRate !== null && p.achievedRate < 0.95 * p.targetRate)) {
        if (good) {
          const why = highP99 ? `p99 ${Number(p.p99.toPrecision(3))} ms above ${limits.p99Ms} ms` : 'arrivals dropped or started late';
          knee = {
            targetRate: good.targetRate, throughputRps: good.throughputRps,
            reason: `${why} at ${p.targetRate}/s; ${good.targetRate}/s was the last rate within limits`,
          };
        }
        break;
      }
      good = p;
    }
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
      'gRPC ÷ REST throughput, warm hybrid GetGroup at 50 users: k6 on both wires, and ghz ÷ oha',
      [...pair(get('grpc', 50), get('rest', 50)), ...pair(get('grpc', 50, { tool: 'ghz' }), get('rest', 50, { tool: 'oha' }))],
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
  const restCell = id({ protocol: 'rest', tool: 'oha', operation: 'GetGroup' });
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
    // one goal of each status: met (interval ≤ 1.1), not met (interval > 1.1), undecided (holds 0.9);
    // the undecided one's interval excludes 1 (a finding against 1), and a met one's includes it
    // (inconclusive against 1, met against ≤ 1.15): a goal card follows the goal, not the test against 1
    getGroupOverHelloServerCpuGrpc: given('gRPC warm GetGroup server CPU per request ÷ the hello-world\'s', 0.9, 0.85, 0.95),
    getGroupOverHelloP50Grpc: given('gRPC warm GetGroup p50 at one user ÷ the hello-world\'s', 0.983, 0.927, 1.02),
    getGroupOverHelloServerCpuRest: given('REST warm GetGroup server CPU per request ÷ the hello-world\'s', 1.24, 1.18, 1.3),
    users500Over50ThroughputRest: given('REST warm ListGroups throughput at 500 users ÷ at 50', 0.93, 0.86, 0.98),
  };
}

// ---------- an overload pair (the overload profile): both wires past their capacity at once ----------

const interval = (value, spread) => ({ value: r1(value), low: r1(value * (1 - spread)), high: r1(value * (1 + spread)) });

function overloadGoal(key, label, bound, atMost, value, low = value, high = value, reason = null) {
  const within = (x) => (atMost ? x <= bound : x >= bound);
  const status = reason ? 'undecided' : within(low) && within(high) ? 'met' : !within(low) && !within(high) ? 'not met' : 'undecided';
  return { key, label, bound, atMost, value, low, high, status, reason };
}

/**
 * One pair, REST (oha) and gRPC (ghz): goodput that holds past capacity on REST and sags on gRPC, the
 * rest refused; REST's 200 % step flagged rate-short (the generator fell behind: its goals at 2× are
 * undecided), gRPC with two L1
 * flushes at 300 %, so the goals show each status.
 */
export function makeOverload() {
  const percents = [25, 50, 100, 150, 200, 300];
  const wire = (protocol, tool, capacity, kept, p99At) => {
    const steps = percents.map((step) => {
      const offered = (capacity * step) / 100;
      const good = Math.min(offered, capacity * kept(step));
      const refused = Math.max(0, offered - good);
      const p99 = p99At(step);
      return {
        cellId: `${protocol}-${tool}-GetGroup-hybrid-warm-c1000-overload${step}`, step, offeredRate: r1(offered),
        goodputRps: interval(good, 0.04), requests: Math.round(offered * 24), refusals: Math.round(refused * 24), admissionRefused: Math.round(refused * 24),
        refusalsPerSecond: r1(refused), timeouts: 0, lateAnswers: 0, otherErrors: 0,
        p50: interval(p99 / 4, 0.1), p99: interval(p99, 0.15), hitRatio: 0.999, minHitRatio: step === 300 && protocol === 'grpc' ? 0.95 : 0.998,
        l1Flushes: step === 300 && protocol === 'grpc' ? { 'log-gap': 2 } : {}, admissionLimit: step <= 100 ? 1000 : 60, minAdmissionLimit: step <= 100 ? 1000 : 40,
        // the service's own clock sees a third of the wait; the cap throttles once the step saturates it
        serviceP99Ms: r1(p99 / 3), capThrottledShare: step >= 100 ? 0.99 : 0.05,
        flags: step === 200 && protocol === 'rest' ? ['rate-short'] : [],
      };
    });
    const at = (step) => steps.find((s) => s.step === step);
    const peak = steps.reduce((a, b) => (b.goodputRps.value > a.goodputRps.value ? b : a));
    const keptRatio = r3(at(200).goodputRps.value / peak.goodputRps.value);
    const growth = r3(at(200).p99.value / at(25).p99.value);
    const name = protocol === 'rest' ? 'REST' : 'gRPC';
    const flushes = steps.reduce((a, s) => a + Object.values(s.l1Flushes).reduce((x, y) => x + y, 0), 0);
    const minHit = Math.min(...steps.map((s) => s.minHitRatio));
    const short = at(200).flags.length ? `the generator could not offer the load in every window it rests on (${at(200).flags.join(', ')})` : null;
    return {
      protocol, tool,
      capacity: { ...at(100), cellId: `${protocol}-${tool}-GetGroup-hybrid-warm-c50-capacity`, step: null, offeredRate: null, goodputRps: interval(capacity, 0.03) },
      steps, peak: { step: peak.step, goodputRps: peak.goodputRps },
      firstSaturatedStep: steps.find((s) => s.goodputRps.value < 0.95 * s.offeredRate)?.step ?? null,
      goodputAt2xOverPeak: { value: keptRatio, low: r3(keptRatio * 0.95), high: r3(keptRatio * 1.05) },
      p99At2xOverUnloaded: { value: growth, low: r3(growth * 0.8), high: r3(growth * 1.2) },
      pastDeadlineAt2x: 0, minHitRatio: minHit, l1FlushCount: flushes,
      goals: [
        overloadGoal('goodputAt2xOverPeak', `${name} · goodput at 2× ÷ peak goodput`, 0.8, false, keptRatio, r3(keptRatio * 0.95), r3(keptRatio * 1.05), short),
        overloadGoal('p99At2xOverUnloaded', `${name} · accepted p99 at 2× ÷ at 25 %`, 10, true, growth, r3(growth * 0.8), r3(growth * 1.2), short),
        overloadGoal('pastDeadlineAt2x', `${name} · requests timed out or answered after their deadline at 2×`, 0, true, 0, 0, 0, short),
        overloadGoal('minWarmHitRatio', `${name} · lowest warm hit ratio over every step's windows`, 0.97, false, minHit),
        overloadGoal('l1Flushes', `${name} · L1 flushes over every step`, 0, true, flushes),
      ],
    };
  };
  return [{
    id: 'overload-GetGroup-hybrid-warm', operation: 'GetGroup', pageSize: null, cacheMode: 'hybrid', temperature: 'warm', tls: false,
    percents, timeoutSeconds: 10,
    wires: [
      wire('rest', 'oha', 9000, () => 0.97, (step) => (step <= 100 ? 2 + step / 50 : 12)),
      wire('grpc', 'ghz', 13000, (step) => (step <= 100 ? 1 : 0.9 - step / 1000), (step) => (step <= 100 ? 1.5 + step / 40 : 30)),
    ],
  }];
}

export function makeRun({ runId, startedAt, seed, grpcSpeed, gitCommit, jdk = 'OpenJDK 21.0.9', withTlsGrpc = true, withSteps = false, withOverload = false, withThreads = false }) {
  const rand = prng(seed);
  const specs = profileSpecs({ withTlsGrpc }).map((s) => ({ ...s, speed: s.protocol === 'grpc' ? grpcSpeed : 1 }));
  const cells = specs.map((s, i) => makeCell(rand, s, i)).map((c) => (withThreads ? withThreadSplit(c) : c));
  // run order: the cells interleaved per service start, as the bench runs them
  let order = 0;
  for (let start = 0; start < STARTS; start++) {
    for (let round = 0; round < ROUNDS; round++) {
      for (const c of cells) {
        const w = c.windows.find((x) => x.start === start && x.round === round);
        w.order = ++order; // 1-based, as the bench numbers them
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
      durationSeconds: 3, warmupSeconds: 1, repetitions: ROUNDS, starts: STARTS, tools: ['k6', 'ghz', 'oha'],
    },
    environment: {
      cpuModel: 'AMD EPYC 7B13', cores: 2, memoryBytes: 25769803776, os: 'Debian GNU/Linux 13 (trixie)', kernel: '6.12.48-1-amd64',
      jdk, springBoot: '4.1.0', grpcJava: '1.76.0', redis: '7.4.6', mariadb: '11.8.3', k6: 'v1.8.1', ghz: 'v0.120.0', h2load: null, oha: '1.8.0',
      gitCommit, gitDirty: false, loadGeneratorNote: 'same machine as the services; the generator pinned to CPU 1',
      placement: { method: 'taskset', services: '0', servers: '0', generator: '1', note: 'services, MariaDB and Redis on CPU 0; the load generator on CPU 1' },
      jvm: { options: ['-Xms512m', '-Xmx512m', '-XX:ActiveProcessorCount=1'], heapMaxBytes: 536870912 },
    },
    cells,
    sweeps: makeSweeps(cells),
    fits: makeFits(cells),
    headline: { ...makeHeadlines(cells), ...(withSteps ? makeStepHeadlines(cells) : {}) },
    ...(withOverload ? { overload: makeOverload() } : {}),
    notes: ['Fixture data for the dashboard tests: made-up numbers shaped like a quick run (schemaVersion 2).'],
  };
}

// ---------- a v1 run (the older bench) ----------

export function makeV1Run({ runId, startedAt, gitCommit }) {
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

// ---------- a watch run (the watch profile: WatchGroup records, no other cell) ----------

/** A WatchGroup record as the bench writes one (run.json `watch`), its windows' figures made up. */
function watchRecord({ protocol, client, writeRate, changes, p50, p99, max, missed = 0, errors = 0 }) {
  const half = Math.floor(changes / 2);
  const window = (start, n, shift) => ({
    start, round: 0, order: start * 4 + (protocol === 'rest' ? 1 : 2) + (writeRate ? 2 : 0), seconds: 60.2, changes: n, missed: start === 0 ? missed : 0,
    loadWrites: Math.round(writeRate * 60), achievedWriteRate: writeRate,
    // a window alone holds fewer than the 1,000 changes a p99 needs
    latencyMs: { n, p50: p50 + shift, p99: null, max: max - 10 * start },
    fromRequestMs: { n, p50: p50 + 40 + shift, p99: null, max: max + 50 },
    errors: start === 0 && errors ? [`${errors} watch stream(s) ended early`] : [],
  });
  return {
    id: `${protocol}-${client}-WatchGroup-hybrid-c4-w${writeRate}`, protocol, client, cacheMode: 'hybrid', watchers: 4, writeRate, pauseMs: 200,
    durationSeconds: 60, starts: 2, repetitions: 1,
    windows: [window(0, half, -1.5), window(1, changes - half, 1.5)],
    summary: {
      changes, missed, errors, achievedWriteRate: writeRate,
      latencyMs: { n: changes, p50, p99, max }, fromRequestMs: { n: changes, p50: p50 + 40, p99: p99 === null ? null : p99 + 60, max: max + 50 },
      windowP50Ms: { min: p50 - 1.5, max: p50 + 1.5 },
    },
  };
}

export function makeWatchRun({ runId, startedAt, gitCommit }) {
  const base = makeRun({ runId, startedAt, seed: 3, grpcSpeed: 1, gitCommit });
  // every headline missing: a watch run pairs no cells
  const headline = Object.fromEntries(Object.entries(base.headline).map(([k, h]) => [k,
    { description: h.description, value: null, low: null, high: null, verdict: 'missing', reason: 'no pair of matching cells in this run', pairs: [] }]));
  return {
    ...base,
    profile: { ...base.profile, name: 'watch', description: 'Fixture profile: WatchGroup on both wires, without and with 200 load writes/s', tools: [] },
    cells: [], sweeps: [], fits: [], headline,
    watch: [
      watchRecord({ protocol: 'rest', client: 'sse', writeRate: 0, changes: 1976, p50: 73.3, p99: 246.9, max: 585.3 }),
      watchRecord({ protocol: 'grpc', client: 'grpcurl', writeRate: 0, changes: 2306, p50: 77, p99: 170.9, max: 344.5 }),
      // the changes a p99 needs, less the ones missed: no p99, and greyed for what it missed
      watchRecord({ protocol: 'rest', client: 'sse', writeRate: 200, changes: 960, p50: 126, p99: null, max: 451.5, missed: 3, errors: 1 }),
      watchRecord({ protocol: 'grpc', client: 'grpcurl', writeRate: 200, changes: 2433, p50: 65.4, p99: 152.5, max: 296.1 }),
    ],
    notes: ['Fixture data for the dashboard tests: made-up WatchGroup records shaped like a watch run (schemaVersion 2).'],
  };
}
