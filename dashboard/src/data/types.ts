// The results files as the bench writes them: run.json schemaVersion 2 (Bench v2, the contract in
// spec-run-v2.md; loadtest/schema/run.schema.json is authoritative once it describes version 2).
// Units: milliseconds unless the name says otherwise (Seconds, Us = microseconds), rates per second,
// sizes in bytes, CPU in seconds or cores. A figure that could not be measured is null, never omitted.

/** The run.json version this dashboard reads. */
export const SUPPORTED_SCHEMA_VERSION = 2;
/** index.json versions this dashboard reads (the index did not change with run.json v2). */
export const SUPPORTED_INDEX_VERSIONS = [1, 2];

export type Protocol = 'rest' | 'grpc';
export type Tool = 'k6' | 'ghz' | 'h2load' | 'oha';
export type Transport = 'http1' | 'h2';
export type Operation = 'GetGroup' | 'ListGroups' | 'Hello';
export type CacheMode = 'none' | 'local' | 'redis' | 'hybrid';
export type Temperature = 'cold' | 'warm' | 'none';
export type LoadModel = 'closed' | 'open';
export type Role = 'throughput' | 'latency' | 'reference' | 'sweep' | 'cold';
export type Verdict = 'finding' | 'inconclusive' | 'flagged' | 'missing';

export const PROTOCOLS: Protocol[] = ['rest', 'grpc'];
export const TOOLS: Tool[] = ['k6', 'ghz', 'h2load', 'oha'];
export const TRANSPORTS: Transport[] = ['http1', 'h2'];
export const OPERATIONS: Operation[] = ['GetGroup', 'ListGroups', 'Hello'];
export const CACHE_MODES: CacheMode[] = ['none', 'local', 'redis', 'hybrid'];
export const TEMPERATURES: Temperature[] = ['cold', 'warm', 'none'];
export const MODELS: LoadModel[] = ['closed', 'open'];
export const ROLES: Role[] = ['throughput', 'latency', 'reference', 'sweep', 'cold'];
export const VERDICTS: Verdict[] = ['finding', 'inconclusive', 'flagged', 'missing'];

/** A median (or ratio) with its bootstrap 95 % interval; low/high null with fewer than 2 windows. */
export interface Interval {
  value: number | null;
  low: number | null;
  high: number | null;
}

/**
 * Why a window or cell is not to be trusted. Codes: generator-saturated, dropped-arrivals, errors,
 * hit-ratio, few-samples, other-cpu, rate-short (the bench may add others).
 */
export interface Flag {
  code: string;
  reason: string;
}

export interface HitRatio {
  l1: number | null;
  l2: number | null;
  overall: number | null;
}

/** Per 250 ms slice of a window; t = the slice's end in seconds. */
export interface TimelineSlice {
  t: number;
  rps: number | null;
  p50: number | null;
  p99: number | null;
}

export interface CpuSeconds {
  'rest-service': number | null;
  'grpc-service': number | null;
  mariadb: number | null;
  redis: number | null;
  generator: number | null;
  other: number | null;
}

/** One measured repetition of a cell. */
export interface Window {
  /** Service start index. */
  start: number;
  /** Round within that start. */
  round: number;
  /** Position in the run. */
  order: number;
  /** Measured span: first request sent .. last response. */
  seconds: number;
  requests: number;
  ok: number;
  errors: number;
  /** ok / seconds (successes only). */
  throughputRps: number;
  latencyMs: { p50: number | null; p99: number | null; max: number | null };
  droppedIterations: number | null;
  achievedRate: number | null;
  hitRatio: HitRatio;
  cpuSeconds: CpuSeconds;
  /** Generator CPU seconds / seconds. */
  generatorCores: number | null;
  jvm: { gcPauseMs: number | null; gcPauses: number | null; jitMs: number | null; jitCpuMs?: number | null };
  db: { rowsRead: number | null; queries: number | null };
  timeline: TimelineSlice[];
  flags: Flag[];
}

/** Pooled HDR histogram of all windows; a percentile is null when too few samples back it. */
export interface LatencyMs {
  mean: number | null;
  p50: number | null;
  p90: number | null;
  p95: number | null;
  p99: number | null;
  p999: number | null;
  p9999: number | null;
  max: number | null;
}

export interface SpectrumPoint {
  /** 0 … < 100 */
  percentile: number;
  ms: number;
}

export interface CpuUsPerRequest {
  service: number | null;
  mariadb: number | null;
  redis: number | null;
  generator: number | null;
  /** The measured service + MariaDB + Redis, with its interval. */
  server: Interval;
}

/** Over all windows of a cell. */
export interface Summary {
  requests: number;
  ok: number;
  errors: number;
  errorRate: number;
  /** Pooled successful latency samples. */
  samples: number;
  /** Median over windows. */
  throughputRps: Interval;
  latencyMs: LatencyMs;
  /** Median over windows of each window's percentile, with its interval. */
  latencyIntervalMs: { p50: Interval; p99: Interval };
  spectrum: SpectrumPoint[];
  bodyBytes: number | null;
  wireBytesSentPerRequest: number | null;
  wireBytesReceivedPerRequest: number | null;
  hitRatio: HitRatio;
  cpuUsPerRequest: CpuUsPerRequest;
  /** Median over windows. */
  generatorCores: number | null;
  /** Summed over windows. */
  jvm: { gcPauseMs: number | null; jitMs: number | null; jitCpuMs?: number | null };
  db: { rowsReadPerRequest: number | null; queriesPerRequest: number | null };
  droppedIterations: number | null;
  achievedRate: number | null;
}

export interface Cell {
  id: string;
  protocol: Protocol;
  tool: Tool;
  transport: Transport;
  operation: Operation;
  pageSize: number | null;
  cacheMode: CacheMode;
  temperature: Temperature;
  model: LoadModel;
  concurrency: number;
  connections: number;
  targetRate: number | null;
  durationSeconds: number;
  warmupSeconds: number;
  /** Windows per service start. */
  repetitions: number;
  /** Number of service starts. */
  starts: number;
  tls: boolean;
  /** REST: the representation asked for (absent in older runs: json); gRPC: protobuf. */
  encoding?: 'json' | 'protobuf';
  /** REST: HTTP version (absent in older runs: 1.1); gRPC: 2. */
  http?: '1.1' | '2';
  /** What the client asked for (absent in older runs: identity). */
  compression?: 'identity' | 'gzip';
  /** REST: the client revalidates its copy (If-None-Match: *, answered 304 with no body). Absent: false. */
  revalidate?: boolean;
  /** Id of the sweep this open-model cell is a point of. */
  sweep: string | null;
  /** Why the cell is in the profile. */
  role: Role;
  windows: Window[];
  summary: Summary;
  /** Every window flag (prefixed "rep N: ") plus cell-level ones. */
  flags: Flag[];
  /** False when flagged: excluded from headline ratios. */
  headlineEligible: boolean;
}

export interface SweepPoint {
  cellId: string;
  targetRate: number;
  achievedRate: number | null;
  throughputRps: number | null;
  p50: number | null;
  p99: number | null;
  p999: number | null;
  droppedIterations: number | null;
  errorRate: number | null;
  flags: Flag[];
}

/** An open-model rate sweep: latency against throughput. */
export interface Sweep {
  id: string;
  protocol: Protocol;
  tool: Tool;
  operation: Operation;
  pageSize: number | null;
  cacheMode: CacheMode;
  temperature: Temperature;
  tls: boolean;
  limits: { p99Ms: number; dropRate: number };
  /** Ascending targetRate. */
  points: SweepPoint[];
  knee: { targetRate: number; throughputRps: number; reason: string } | null;
}

export interface Fit {
  protocol: Protocol;
  tool: Tool;
  cacheMode: CacheMode;
  temperature: Temperature;
  operation: Operation;
  /** The concurrency the page-size sweep ran at. */
  concurrency: number;
  tls: boolean;
  /** The fitted cells' body (absent in older runs: the wire's default). */
  encoding?: 'json' | 'protobuf';
  http?: '1.1' | '2';
  compression?: 'identity' | 'gzip';
  metric: string;
  a: number;
  b: number;
  r2: number | null;
  /** Server CPU per request (µs) = a + b·N over the same cells: b is the server's CPU per row; null without CPU figures. */
  serverCpu?: { a: number; b: number; r2: number | null } | null;
  points: { pageSize: number; latencyMs: number; serverCpuUs?: number }[];
  cellIds: string[];
}

export interface HeadlinePair {
  numeratorCellId: string;
  denominatorCellId: string;
  ratio: number | null;
  low: number | null;
  high: number | null;
  excluded: boolean;
  excludedWhy: string | null;
}

export interface Headline {
  description: string;
  value: number | null;
  low: number | null;
  high: number | null;
  /**
   * finding: the interval excludes 1 and no flagged cell; inconclusive: the interval includes 1;
   * flagged: only flagged pairs were available (value computed from them anyway); missing: no pair.
   */
  verdict: Verdict;
  /** Plain words for any verdict but finding. */
  reason: string | null;
  pairs: HeadlinePair[];
}

export const HEADLINE_NAMES = [
  'grpcOverRestP50Warm',
  'grpcOverRestThroughputWarm',
  'grpcOverRestServerCpuPerRequest',
  'warmHybridOverNoneThroughput',
  'jsonOverProtobufBodyBytes',
  'getGroupOverHelloThroughput',
  'tlsOverPlainP50Rest',
  'tlsOverPlainP50Grpc',
  'tlsOverPlainThroughputRest',
  'tlsOverPlainThroughputGrpc',
] as const;

export interface Placement {
  method: 'taskset' | 'none';
  /** CPU lists, or null. */
  services: string | null;
  servers: string | null;
  generator: string | null;
  note: string | null;
}

export interface Environment {
  cpuModel?: string | null;
  cores?: number | null;
  memoryBytes?: number | null;
  os?: string | null;
  kernel?: string | null;
  jdk?: string | null;
  gitCommit?: string | null;
  gitDirty?: boolean | null;
  loadGeneratorNote?: string | null;
  placement?: Placement;
  jvm?: { options: string[]; heapMaxBytes: number | null };
  [key: string]: unknown;
}

export interface Run {
  schemaVersion: 2;
  runId: string;
  startedAt: string;
  finishedAt: string | null;
  profile: { name: string; description?: string; [key: string]: unknown };
  environment: Environment;
  cells: Cell[];
  sweeps: Sweep[];
  fits: Fit[];
  headline: Record<string, Headline>;
  notes: string[];
}

export interface IndexEntry {
  runId: string;
  path: string;
  startedAt?: string;
  profile?: string;
  gitCommit?: string;
  cellCount?: number;
}

export interface ResultsIndex {
  schemaVersion: number;
  runs: IndexEntry[];
}

/**
 * A run as the app holds it: read and valid; written by an older bench (listed, not plotted:
 * re-running the bench is the fix); or unreadable with a reason.
 */
export type LoadedRun =
  | { entry: IndexEntry; status: 'ok'; run: Run }
  | { entry: IndexEntry; status: 'older'; schemaVersion: number; reason: string }
  | { entry: IndexEntry; status: 'unreadable'; reason: string };
