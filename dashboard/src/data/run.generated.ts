// GENERATED from loadtest/schema/run.schema.json by scripts/gen-run-types.mjs: do not edit.
// The types of results/<run-id>/run.json (schemaVersion 2); src/data/types.ts names the ones the app uses.
// Regenerate with `npm run gen:types`; tests/generated.test.ts fails while this file is stale.

/**
 * ISO-8601 date-time with offset, e.g. 2026-11-22T07:00:00Z
 */
export type Timestamp = string;
export type StringOrNull = string | null;
export type NonNegativeOrNull = number | null;
export type NonNegative = number;
export type RatioOrNull = number | null;
/**
 * a figure per kind of the service's threads, from each thread's name (loadtest/tandem_bench/cpu.py THREAD_KINDS): carrier (the virtual threads' carriers, where each request's own code runs), io (the server's I/O threads: Tomcat's poller and acceptor, Netty's event loops, the JDK's pollers), redis (the Lettuce client's threads), gc (the collector and the VM thread), jit (the compilers), other. In a window (serviceThreads.cpuMsByKind) the CPU ms each kind used, counted per thread (a thread started in the window from zero, one that ended in it left out); in a cell's summary (serviceThreads.cpuUsPerRequestByKind) the µs a successful request over the cell's windows, null where a window lacks the reading. Absent in runs from before it was recorded
 */
export type ThreadKinds = {
  carrier: NonNegative;
  io: NonNegative;
  redis: NonNegative;
  gc: NonNegative;
  jit: NonNegative;
  other: NonNegative;
} | null;
export type Flags = Flag[];
export type SweepRateOrNull = null | {
  targetRate: NonNegative;
  throughputRps: NonNegativeOrNull;
  reason: string;
};

/**
 * One bench run (schemaVersion 2): environment (with CPU placement), profile, one record per cell with its windows and pooled summary, the rate sweeps, the overload pairs and the WatchGroup cells (when the profile has any), the A + B*N fits and the headline ratios with intervals and verdicts. Times in milliseconds unless named otherwise, rates per second, sizes in bytes, CPU in seconds or cores. The dashboard reads only this shape.
 */
export interface Run {
  schemaVersion: 2;
  /**
   * UTC start time, profile name and short commit, e.g. 20261122T070000Z-quick-a262159
   */
  runId: string;
  startedAt: Timestamp;
  finishedAt: Timestamp;
  /**
   * The profile as read from its file; name is required, the other settings are free-form.
   */
  profile: {
    name: string;
    [k: string]: unknown;
  };
  environment: Environment;
  cells: Cell[];
  sweeps: Sweep[];
  /**
   * The overload pairs (profile [[overload]] blocks, issue #17): per pair and wire, the capacity measured with both wires loaded at once, each step's figures, and the goals with their status. Absent in runs without overload cells (and in runs older than it).
   */
  overload?: OverloadPair[];
  /**
   * The WatchGroup cells (profile [[watch]] blocks, issue #16): change-to-client latency per wire under write load. Absent in runs without them (and in runs older than them).
   */
  watch?: WatchCell[];
  fits: Fit[];
  headline: Headline;
  /**
   * Anything the reader must know, e.g. a cold cell whose hit ratio was not near 0.
   */
  notes: string[];
}
/**
 * Where the run happened. A figure that could not be read is null.
 */
export interface Environment {
  cpuModel: StringOrNull;
  cores: number | null;
  memoryBytes: number | null;
  os: StringOrNull;
  kernel: StringOrNull;
  jdk: StringOrNull;
  springBoot: StringOrNull;
  grpcJava: StringOrNull;
  redis: StringOrNull;
  mariadb: StringOrNull;
  k6: StringOrNull;
  ghz: StringOrNull;
  gitCommit: StringOrNull;
  gitDirty: boolean | null;
  /**
   * Set when the bench measured already-running services (make bench TARGET=...): the endpoints it was given. Absent when it started its own.
   */
  target?: {
    rest: string;
    grpc: string;
    restManagement: string[];
    grpcManagement: string[];
    caFile: StringOrNull;
  };
  /**
   * How the load generator shared the machine with the services (same cores? pinned?).
   */
  loadGeneratorNote: string | null;
  h2load: StringOrNull;
  oha: StringOrNull;
  /**
   * Which CPUs each role ran on (taskset CPU lists), or none pinned; and the services' CPU cap, if any.
   */
  placement: {
    method: 'taskset' | 'none';
    services: StringOrNull;
    servers: StringOrNull;
    generator: StringOrNull;
    note: string;
    /**
     * The CPU cap on the two service JVMs together (profile service_cpu_quota, loadtest/tandem_bench/cpu_quota.py): the cores asked for (null: none asked), how it was applied (a cgroup, or none, the note saying why), the CFS period and quota in microseconds. Absent in runs made before the setting existed.
     */
    serviceCpuQuota?: {
      cores: number | null;
      method: 'cgroup-v2' | 'cgroup-v1' | 'none';
      periodMicros: number | null;
      quotaMicros: number | null;
      note: string;
    };
  };
  /**
   * The services' JVM options and the heap maximum they reported.
   */
  jvm: {
    options: string[];
    heapMaxBytes: number | null;
  };
}
export interface Cell {
  id: string;
  protocol: 'rest' | 'grpc';
  tool: 'k6' | 'ghz' | 'h2load' | 'oha';
  transport: 'http1' | 'h2';
  /**
   * Hello is the framework's hello-world baseline endpoint; it touches no cache.
   */
  operation: 'GetGroup' | 'ListGroups' | 'Hello';
  pageSize: number | null;
  /**
   * The service's tandem.cache.mode during the cell.
   */
  cacheMode: 'none' | 'local' | 'redis' | 'hybrid';
  temperature: 'cold' | 'warm' | 'none';
  model: 'closed' | 'open';
  concurrency: number;
  connections: number;
  targetRate: NonNegativeOrNull;
  durationSeconds: NonNegative;
  warmupSeconds: NonNegative;
  repetitions: number;
  starts: number;
  tls: boolean;
  sweep: StringOrNull;
  role: 'throughput' | 'latency' | 'reference' | 'cold' | 'sweep' | 'capacity' | 'overload';
  /**
   * @minItems 1
   */
  windows: Window[];
  summary: Summary;
  flags: Flags;
  headlineEligible: boolean;
  /**
   * REST: the representation the client asked for (Accept): json or protobuf; gRPC: protobuf. Absent in older runs = json (REST).
   */
  encoding?: 'json' | 'protobuf';
  /**
   * REST: the HTTP version, 1.1 or 2 (h2c by prior knowledge, h2 by ALPN over TLS); gRPC: 2. Absent in older runs = 1.1 (REST).
   */
  http?: '1.1' | '2';
  /**
   * What the client asked for: identity, or gzip (REST Accept-Encoding; gRPC a compressed call). Absent in older runs = identity.
   */
  compression?: 'identity' | 'gzip';
  /**
   * REST: the client revalidates a copy it holds (If-None-Match: *, answered 304 with no body; bodyBytes is 0). Absent in older runs = false.
   */
  revalidate?: boolean;
  /**
   * Overload cells only: the pair (both wires measured at the same time), the step in percent of the wire's measured capacity (null: the capacity cell, closed model), a request's deadline in seconds and the seconds each window ran before it was measured (absent in runs before them: none).
   */
  overload?: {
    pair: string;
    step: number | null;
    timeoutSeconds: NonNegativeOrNull;
    settleSeconds?: number;
  };
  /**
   * Measured against services started traced (tandem.tracing.enabled, every request sampled, spans exported over OTLP/HTTP to the bench's sink), in starts of their own. Absent in older runs = false.
   */
  tracing?: boolean;
}
/**
 * One measured window (a repetition in one service start).
 */
export interface Window {
  start: number;
  round: number;
  order: number;
  seconds: NonNegative;
  requests: number;
  ok: number;
  errors: number;
  throughputRps: NonNegative;
  latencyMs: {
    p50: NonNegativeOrNull;
    p99: NonNegativeOrNull;
    max: NonNegativeOrNull;
  };
  /**
   * The measured service's own timing of the window's successful requests of the cell's operation, from its latency histogram (Micrometer's http.server.requests / grpc.server buckets, read before and after the generator's run, and in a window with settle seconds again once they are over; p50/p99 interpolated within a bucket, p99 only from 1,000 requests). It starts where the framework first sees the request. It spans the measured span in an overload window (since the settled reading; before it, the settle seconds too) and the generator's whole run elsewhere. Null where the service publishes no histogram or a reading failed; absent in runs before it.
   */
  serviceLatencyMs?: null | {
    count: number;
    p50: NonNegativeOrNull;
    p99: NonNegativeOrNull;
  };
  droppedIterations: NonNegativeOrNull;
  achievedRate: NonNegativeOrNull;
  hitRatio: HitRatio;
  cpuSeconds: {
    'rest-service': NonNegativeOrNull;
    'grpc-service': NonNegativeOrNull;
    /**
     * the compose balancer (nginx) in front of the services, where an overload cell went through it; null otherwise
     */
    balancer?: number | null;
    mariadb: NonNegativeOrNull;
    redis: NonNegativeOrNull;
    /**
     * the load generator; in a paired window (an overload step) both wires' generators together, which share the generator's cores
     */
    generator: number | null;
    /**
     * in a paired window only: the window's own wire's generator, apart from the pair's
     */
    ownGenerator?: number | null;
    other: NonNegativeOrNull;
  };
  generatorCores: NonNegativeOrNull;
  jvm: {
    gcPauseMs: number | null;
    gcPauses: number | null;
    /**
     * the JVM's own compilation time (jvm_compilation_time_ms_total): wall time inside compilations
     */
    jitMs: number | null;
    /**
     * CPU time of the JVM's JIT compiler threads (/proc); null against a target
     */
    jitCpuMs?: number | null;
  };
  db: {
    rowsRead: number | null;
    queries: number | null;
  };
  /**
   * the measured service process from /proc, read before and after the generator's run (null against a target, or in a run from before they were recorded)
   */
  serviceThreads?: {
    /**
     * CPU its threads spent in its own code (utime)
     */
    userCpuMs: number | null;
    /**
     * CPU the kernel spent on its behalf: system calls, page faults (stime)
     */
    systemCpuMs: number | null;
    /**
     * voluntary and involuntary context switches of its threads
     */
    contextSwitches: number | null;
    cpuMsByKind?: ThreadKinds;
  };
  wireBytesSentPerRequest: NonNegativeOrNull;
  wireBytesReceivedPerRequest: NonNegativeOrNull;
  timeline: {
    t: NonNegative;
    rps: NonNegative;
    p50: NonNegativeOrNull;
    /**
     * ms, nearest rank over the slice's successful requests; null below 1,000 of them (p50: below 20), the rule of pooled.min_samples
     */
    p99: number | null;
  }[];
  flags: Flags;
  /**
   * Overload cells: the arrival rate this window was driven at (a step's percent of the capacity of its start and round); null for a capacity window. Absent in other cells.
   */
  offeredRate?: number | null;
  /**
   * Overload cells: requests refused by admission control (HTTP 503 / gRPC UNAVAILABLE).
   */
  refusals?: number | null;
  /**
   * Overload cells: requests that reached their deadline (HTTP 504 / gRPC DEADLINE_EXCEEDED, or the generator's own timeout, set to the services' request timeout).
   */
  timeouts?: number | null;
  /**
   * Overload cells: failures that were neither refusals nor timeouts.
   */
  otherErrors?: number | null;
  /**
   * Overload cells: successful answers that came after the deadline, counted from the request's due time.
   */
  lateAnswers?: number | null;
  /**
   * Overload cells: the measured service's whole-L1 flushes during the window, by reason ({} none); null when its /actuator/cache did not report them.
   */
  l1Flushes?: {
    [k: string]: number;
  } | null;
  /**
   * Overload cells: the service's admission concurrency limit (tandem_admission_limit) read after the window; null when it has none.
   */
  admissionLimit?: number | null;
  /**
   * Overload cells: what the CPU cap's cgroup counted over the window's measured span (its cpu.stat, read after the settle seconds and after the run; the pair's two cells alike): CFS periods with a runnable thread, periods in which the capped processes ran out of their quota and all stopped until the next, and the time stopped in ms. Null uncapped or unreadable; absent in runs before it.
   */
  capThrottling?: null | {
    periods: number;
    throttledPeriods: number;
    throttledMs: number;
  };
  /**
   * Overload cells: the requests the measured service says its admission control refused during the window (tandem_admission_refused_total), beside the generator's count of 503 / UNAVAILABLE; null when it does not say. It spans the whole generator run, the settle seconds that no other figure counts included (profile settle_seconds), so it may exceed the generator's count.
   */
  admissionRefused?: number | null;
  /**
   * Traced cells: the spans the measured service's exports brought to the bench's OTLP sink during the window (batched, so they lag its requests by up to the export's schedule delay). Absent for untraced cells.
   */
  exportedSpans?: number;
}
/**
 * Cache hits / lookups, from the service's own counters: over the measured window (a window's), or over every window of the cell, their hits and misses summed per level (a cell's summary; in runs before 2026-12-02 each level's median over the windows, which could pair an overall with levels of other windows); null when that level is not in play (cacheMode none, l2 under local, l1 under redis).
 */
export interface HitRatio {
  l1: RatioOrNull;
  l2: RatioOrNull;
  overall: RatioOrNull;
}
export interface Flag {
  code:
    | 'generator-saturated'
    | 'dropped-arrivals'
    | 'rate-short'
    | 'errors'
    | 'hit-ratio'
    | 'db-reads'
    | 'unverified'
    | 'other-cpu'
    | 'few-samples'
    | 'jit';
  reason: string;
}
export interface Summary {
  requests: number;
  ok: number;
  errors: number;
  errorRate: number;
  samples: number;
  throughputRps: Interval;
  /**
   * Pooled over every window (HdrHistogram); a percentile is null below 10/(1-p) samples.
   */
  latencyMs: {
    mean: NonNegativeOrNull;
    p50: NonNegativeOrNull;
    p90: NonNegativeOrNull;
    p95: NonNegativeOrNull;
    p99: NonNegativeOrNull;
    p999: NonNegativeOrNull;
    p9999: NonNegativeOrNull;
    max: NonNegativeOrNull;
  };
  latencyIntervalMs: {
    p50: Interval;
    p99: Interval;
  };
  spectrum: {
    percentile: number;
    ms: NonNegative;
  }[];
  bodyBytes: NonNegativeOrNull;
  wireBytesSentPerRequest: NonNegativeOrNull;
  wireBytesReceivedPerRequest: NonNegativeOrNull;
  hitRatio: HitRatio;
  cpuUsPerRequest: {
    service: NonNegativeOrNull;
    mariadb: NonNegativeOrNull;
    redis: NonNegativeOrNull;
    /**
     * the cell's own generator's CPU per successful request; in a paired cell (overload) its wire's generator's, not the pair's
     */
    generator: number | null;
    server: Interval;
  };
  generatorCores: NonNegativeOrNull;
  /**
   * The service's own p50/p99 of the cell's successful requests (the windows' histograms summed, then read once; in runs before 2026-12-01 the median of the windows' serviceLatencyMs); absent in runs before it.
   */
  serviceLatencyMs?: {
    p50: NonNegativeOrNull;
    p99: NonNegativeOrNull;
  };
  jvm: {
    gcPauseMs: number | null;
    /**
     * the JVM's own compilation time (jvm_compilation_time_ms_total): wall time inside compilations
     */
    jitMs: number | null;
    /**
     * CPU time of the JVM's JIT compiler threads (/proc); null against a target
     */
    jitCpuMs?: number | null;
  };
  db: {
    rowsReadPerRequest: NonNegativeOrNull;
    queriesPerRequest: NonNegativeOrNull;
  };
  /**
   * how the measured service spent its CPU over the cell's windows; absent in runs from before it was recorded
   */
  serviceThreads?: {
    /**
     * system CPU ÷ (user + system) of the service process
     */
    systemShare: number | null;
    /**
     * its threads' context switches per successful request
     */
    contextSwitchesPerRequest: number | null;
    cpuUsPerRequestByKind?: ThreadKinds;
  };
  droppedIterations: NonNegativeOrNull;
  achievedRate: NonNegativeOrNull;
}
/**
 * A median (or pooled figure) and its bootstrap 95 % interval; low/high null with fewer than two windows.
 */
export interface Interval {
  value: NonNegativeOrNull;
  low: NonNegativeOrNull;
  high: NonNegativeOrNull;
}
export interface Sweep {
  id: string;
  protocol: 'rest' | 'grpc';
  tool: 'k6' | 'ghz' | 'h2load' | 'oha';
  /**
   * Hello is the framework's hello-world baseline endpoint; it touches no cache.
   */
  operation: 'GetGroup' | 'ListGroups' | 'Hello';
  pageSize: number | null;
  /**
   * The service's tandem.cache.mode during the cell.
   */
  cacheMode: 'none' | 'local' | 'redis' | 'hybrid';
  temperature: 'cold' | 'warm' | 'none';
  tls: boolean;
  limits: {
    p99Ms: NonNegative;
    dropRate: NonNegative;
  };
  points: {
    cellId: string;
    targetRate: NonNegative;
    achievedRate: NonNegativeOrNull;
    throughputRps: NonNegativeOrNull;
    p50: NonNegativeOrNull;
    p99: NonNegativeOrNull;
    p999: NonNegativeOrNull;
    droppedIterations: NonNegativeOrNull;
    errorRate: number;
    flags: Flags;
  }[];
  knee: SweepRateOrNull;
  /**
   * The sweep's lowest rate already passed the limits (knee null): it saturated at or below that rate, which a knee of null alone does not tell from never saturating. Null otherwise; absent in runs before it.
   */
  saturatedAtLowest?: null | {
    targetRate: NonNegative;
    throughputRps: NonNegativeOrNull;
    reason: string;
  };
}
export interface OverloadPair {
  id: string;
  operation: 'GetGroup' | 'ListGroups' | 'Hello';
  pageSize: number | null;
  cacheMode: 'none' | 'local' | 'redis' | 'hybrid';
  temperature: 'cold' | 'warm' | 'none';
  tls: boolean;
  percents: number[];
  timeoutSeconds: NonNegativeOrNull;
  wires: OverloadWire[];
}
export interface OverloadWire {
  protocol: 'rest' | 'grpc';
  tool: 'k6' | 'ghz' | 'h2load' | 'oha';
  /**
   * balancer: the wire's requests went through the compose balancer (deploy/compose/nginx.conf) in front of its service; null: straight to the service
   */
  front?: null | 'balancer';
  capacity: null | OverloadStep;
  steps: OverloadStep[];
  peak: null | {
    step: number;
    goodputRps: Interval;
  };
  /**
   * The step the goals at 2× were read at: the lowest offered at least twice the peak goodput (the most the wire served, its saturating rate), and how many times the peak it offered. null when no step offered that much (the goals at 2× are then missing); absent in runs before it, whose goals were read at the 200 % step of the closed capacity.
   */
  doubleStep?: null | {
    step: number;
    offeredOverPeak: number;
  };
  goodputAt2xOverPeak: {
    value: NonNegativeOrNull;
    low: NonNegativeOrNull;
    high: NonNegativeOrNull;
  };
  p99At2xOverUnloaded: {
    value: NonNegativeOrNull;
    low: NonNegativeOrNull;
    high: NonNegativeOrNull;
  };
  pastDeadlineAt2x: number | null;
  minHitRatio: RatioOrNull;
  l1FlushCount: NonNegativeOrNull;
  goals: OverloadGoal[];
  /**
   * The lowest step that served less than 95 % of its offered load (null: none did); absent in runs before it. Goals at 2× are undecided when the 2× step did not saturate.
   */
  firstSaturatedStep?: number | null;
  /**
   * What a refusal cost in place: the CPU of the wire's refusing processes (cpuOf) over the windows of the saturated steps, fitted as served × servedUs + refused × refusedUs (least squares); ratio = refusedUs ÷ servedUs with its bootstrap interval (a fit: may come out below zero when refusals were few); ratioForGoal = the ratio at which the 2× step's CPU and arrivals would have kept 0.8 of the peak goodput (null: no 2× step, or it needed no refusal). null when the saturated steps refused under 5 % of their requests; absent in runs before it.
   */
  refusalCost?: null | {
    servedUs: number;
    refusedUs: number;
    ratio: {
      value: number;
      low: number | null;
      high: number | null;
    };
    ratioForGoal: number | null;
    windows: number;
    /**
     * @minItems 1
     */
    cpuOf: ('rest-service' | 'grpc-service' | 'balancer')[];
  };
}
export interface OverloadStep {
  cellId: string;
  step: number | null;
  offeredRate: NonNegativeOrNull;
  goodputRps: Interval;
  requests: number;
  refusals: number | null;
  refusalsPerSecond: NonNegativeOrNull;
  timeouts: number | null;
  lateAnswers: number | null;
  otherErrors: number | null;
  p50: Interval;
  p99: Interval;
  hitRatio: RatioOrNull;
  minHitRatio: RatioOrNull;
  l1Flushes: {
    [k: string]: number;
  } | null;
  admissionLimit: NonNegativeOrNull;
  minAdmissionLimit: NonNegativeOrNull;
  /**
   * The CPU the services (and the balancer, where one runs) used in the step's windows, in cores (median): what the profile's CPU cap holds together; absent in runs before it.
   */
  serviceCores?: number | null;
  /**
   * The accepted requests' p99 as the service itself timed them (the step's windows' histograms summed, then read once; in runs before 2026-12-01 the median of the windows' serviceLatencyMs.p99, which reads lower): beside p99, how much of the wait was inside the service; absent in runs before it.
   */
  serviceP99Ms?: number | null;
  /**
   * The share of the CPU cap's periods in which the capped processes ran out of their quota (the windows' capThrottling, median): how often the cap itself held every request up; absent in runs before it.
   */
  capThrottledShare?: number | null;
  /**
   * The wire's service's CPU on its I/O threads over its CPU on the carriers that run the admitted requests (the windows' serviceThreads.cpuMsByKind, median); absent in runs before it.
   */
  ioOverCarrier?: number | null;
  flags: string[];
  /**
   * The service's own count of refusals over the step's windows, their settle seconds included (null when it did not say); absent in runs before it.
   */
  admissionRefused?: number | null;
}
/**
 * A goal of the issue: met when the whole interval is on its side of the bound, not met when all of it is on the other, undecided when it holds the bound, has none, or rests on windows whose generator could not offer the load (reason). Counts and the lowest hit ratio are exact (low = high = value).
 */
export interface OverloadGoal {
  key: string;
  label: string;
  bound: number;
  atMost: boolean;
  value: number | null;
  low: number | null;
  high: number | null;
  status: 'met' | 'not met' | 'undecided' | 'missing';
  reason: StringOrNull;
}
/**
 * A WatchGroup cell (profile [[watch]] block): change-to-client latency of group watches on one wire while load writers change other groups at writeRate.
 */
export interface WatchCell {
  id: string;
  protocol: 'rest' | 'grpc';
  /**
   * what held the watches open: sse (the bench's Server-Sent Events reader) or grpcurl
   */
  client: 'sse' | 'grpcurl';
  cacheMode: 'local' | 'redis' | 'hybrid';
  /**
   * watches held open, each on a group of its own
   */
  watchers: number;
  /**
   * load writes per second asked for
   */
  writeRate: number;
  /**
   * most a watched group's writer waited (uniformly random) before each change
   */
  pauseMs: number;
  durationSeconds: NonNegative;
  starts: number;
  repetitions: number;
  /**
   * @minItems 1
   */
  windows: WatchWindow[];
  summary: {
    changes: number;
    missed: number;
    errors: number;
    achievedWriteRate: NonNegative;
    latencyMs: WatchLatency2;
    fromRequestMs: WatchLatency2;
    /**
     * the smallest and largest window p50
     */
    windowP50Ms: {
      min: NonNegative;
      max: NonNegative;
    } | null;
  };
}
export interface WatchWindow {
  start: number;
  round: number;
  order: number;
  seconds: NonNegative;
  /**
   * changes made to the watched groups
   */
  changes: number;
  /**
   * changes a watch did not show within 10 s
   */
  missed: number;
  /**
   * load writes applied (joins and leaves of other groups)
   */
  loadWrites: number;
  achievedWriteRate: NonNegative;
  latencyMs: WatchLatency;
  fromRequestMs: WatchLatency1;
  errors: string[];
}
/**
 * from each change's write answer to the watch's receipt
 */
export interface WatchLatency {
  n: number;
  p50: NonNegativeOrNull;
  /**
   * null below 1,000 changes
   */
  p99: number | null;
  max: NonNegativeOrNull;
}
/**
 * from each change's write request to the watch's receipt (an upper bound)
 */
export interface WatchLatency1 {
  n: number;
  p50: NonNegativeOrNull;
  /**
   * null below 1,000 changes
   */
  p99: number | null;
  max: NonNegativeOrNull;
}
/**
 * Change-to-client latency in ms over a set of changes: their count, nearest-rank p50 and p99 (null below 20 and 1,000 changes: pooled.min_samples, the rule of every percentile of the bench), and the largest.
 */
export interface WatchLatency2 {
  n: number;
  p50: NonNegativeOrNull;
  /**
   * null below 1,000 changes
   */
  p99: number | null;
  max: NonNegativeOrNull;
}
/**
 * cycle time = a + b * pageSize, least squares over the cells' median latency (metric) at each page size; serverCpu the same over server CPU per request. One fit per wire, tool, cache state, concurrency, TLS and body (encoding, HTTP version, compression).
 */
export interface Fit {
  protocol: 'rest' | 'grpc';
  tool: 'k6' | 'ghz' | 'h2load' | 'oha';
  cacheMode: 'none' | 'local' | 'redis' | 'hybrid';
  temperature: 'cold' | 'warm' | 'none';
  operation: 'ListGroups';
  concurrency: number;
  /**
   * Fitted over TLS cells; absent (older runs) means plain.
   */
  tls?: boolean;
  /**
   * The fitted cells' representation: json or protobuf on REST, protobuf on gRPC (absent in older runs: the wire's default).
   */
  encoding?: 'json' | 'protobuf';
  /**
   * The fitted cells' HTTP version: 1.1 or 2 on REST, 2 on gRPC (absent in older runs: the wire's default).
   */
  http?: '1.1' | '2';
  /**
   * What the fitted cells' client asked for: identity or gzip (absent in older runs: identity).
   */
  compression?: 'identity' | 'gzip';
  metric: 'p50';
  /**
   * ms: the fitted p50 at page size 0 of the closed-model cells at `concurrency` users; with many users in flight that p50 is mostly queueing (about users / throughput), so this is not a call's fixed cost
   */
  a: number;
  /**
   * ms per row of that closed-model p50 (queueing included at many users)
   */
  b: number;
  /**
   * coefficient of determination; null when every point has the same latency (nothing to explain)
   */
  r2: number | null;
  /**
   * server CPU per request (service + MariaDB + Redis, µs) = a + b * pageSize over the same cells: b is the server's CPU per row; null when a cell has no CPU figure
   */
  serverCpu?: {
    /**
     * µs, the fixed CPU of a call
     */
    a: number;
    /**
     * µs per row
     */
    b: number;
    r2: number | null;
  } | null;
  /**
   * @minItems 2
   */
  points: {
    pageSize: number;
    latencyMs: number;
    /**
     * the cell's server CPU per request (µs), when it has one
     */
    serverCpuUs?: number;
  }[];
  cellIds: string[];
  /**
   * Fitted over traced cells (present only then).
   */
  tracing?: true;
}
/**
 * The step*, gzipOverIdentity* and revalidatedOverFull* figures (where gRPC ÷ REST comes from, one change at a time) and the hot path's goals (getGroupOverHello*, users500Over50*, per wire; users500Over50ThroughputMultiplexedGrpc for 500 gRPC users multiplexed over the 50-user cell's connections) are present only when the run has the cells they pair. The tracedOverUntraced* figures (what tracing costs per wire) are present only when the run has traced cells and their untraced twins.
 */
export interface Headline {
  grpcOverRestP50Warm: HeadlineFigure;
  grpcOverRestThroughputWarm: HeadlineFigure;
  grpcOverRestServerCpuPerRequest: HeadlineFigure;
  warmHybridOverNoneThroughput: HeadlineFigure;
  jsonOverProtobufBodyBytes: HeadlineFigure;
  getGroupOverHelloThroughput: HeadlineFigure;
  tlsOverPlainP50Rest: HeadlineFigure;
  tlsOverPlainP50Grpc: HeadlineFigure;
  tlsOverPlainThroughputRest: HeadlineFigure;
  tlsOverPlainThroughputGrpc: HeadlineFigure;
  stepEncodingServerCpu?: HeadlineFigure;
  stepEncodingThroughput?: HeadlineFigure;
  stepHttp2ServerCpu?: HeadlineFigure;
  stepHttp2Throughput?: HeadlineFigure;
  stepGrpcServerCpu?: HeadlineFigure;
  stepGrpcThroughput?: HeadlineFigure;
  stepDirectServerCpu?: HeadlineFigure;
  stepDirectThroughput?: HeadlineFigure;
  gzipOverIdentityServerCpuRest?: HeadlineFigure;
  gzipOverIdentityServerCpuGrpc?: HeadlineFigure;
  revalidatedOverFullServerCpu?: HeadlineFigure;
  revalidatedOverFullThroughput?: HeadlineFigure;
  getGroupOverHelloServerCpuRest?: HeadlineFigure;
  getGroupOverHelloServerCpuGrpc?: HeadlineFigure;
  getGroupOverHelloP50Rest?: HeadlineFigure;
  getGroupOverHelloP50Grpc?: HeadlineFigure;
  users500Over50ThroughputRest?: HeadlineFigure;
  users500Over50ThroughputGrpc?: HeadlineFigure;
  users500Over50ThroughputMultiplexedGrpc?: HeadlineFigure;
  tracedOverUntracedServerCpuRest?: HeadlineFigure;
  tracedOverUntracedServerCpuGrpc?: HeadlineFigure;
  tracedOverUntracedThroughputRest?: HeadlineFigure;
  tracedOverUntracedThroughputGrpc?: HeadlineFigure;
}
export interface HeadlineFigure {
  description: string;
  value: number | null;
  low: number | null;
  high: number | null;
  verdict: 'finding' | 'inconclusive' | 'flagged' | 'missing';
  reason: StringOrNull;
  pairs: Pair[];
}
export interface Pair {
  numeratorCellId: string;
  denominatorCellId: string;
  ratio: number | null;
  low: number | null;
  high: number | null;
  excluded: boolean;
  excludedWhy: StringOrNull;
}
