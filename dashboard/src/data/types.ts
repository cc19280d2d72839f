// The results files as the bench writes them (DESIGN.md "Results"; the JSON Schema in
// loadtest/schema/run.schema.json is authoritative). Only what the dashboard reads is typed.

export const SUPPORTED_SCHEMA_VERSION = 1;

export type Protocol = 'rest' | 'grpc';
export type Tool = 'k6' | 'ghz';
export type Operation = 'GetGroup' | 'ListGroups' | 'Hello';
export type CacheMode = 'none' | 'local' | 'redis' | 'hybrid';
export type Temperature = 'cold' | 'warm' | 'none';
export type LoadModel = 'closed' | 'open';

export const PROTOCOLS: Protocol[] = ['rest', 'grpc'];
export const TOOLS: Tool[] = ['k6', 'ghz'];
export const OPERATIONS: Operation[] = ['GetGroup', 'ListGroups', 'Hello'];
export const CACHE_MODES: CacheMode[] = ['none', 'local', 'redis', 'hybrid'];
export const TEMPERATURES: Temperature[] = ['cold', 'warm', 'none'];
export const MODELS: LoadModel[] = ['closed', 'open'];

/** Milliseconds; null only when no request of the window succeeded. */
export interface LatencyMs {
  mean: number | null;
  p50: number | null;
  p90: number | null;
  p95: number | null;
  p99: number | null;
  p999: number | null;
  max: number | null;
}

export interface HitRatio {
  l1: number | null;
  l2: number | null;
  overall: number | null;
}

export interface Measurement {
  requests: number;
  errors: number;
  errorRate: number;
  throughputRps: number;
  latencyMs: LatencyMs;
  bodyBytes: number | null;
  wireBytesSentPerRequest: number | null;
  wireBytesReceivedPerRequest: number | null;
  hitRatio: HitRatio;
  loadGenCpuSeconds?: number | null;
  loadGenCpuPercent?: number | null;
  droppedIterations?: number | null;
  achievedRate?: number | null;
}

export interface Cell {
  id: string;
  protocol: Protocol;
  tool: Tool;
  operation: Operation;
  pageSize: number | null;
  cacheMode: CacheMode;
  temperature: Temperature;
  model: LoadModel;
  concurrency: number;
  connections?: number | null;
  targetRate?: number | null;
  durationSeconds?: number;
  warmupSeconds?: number;
  repetitions?: number;
  /** Over TLS (HTTPS, gRPC over TLS); absent in runs written before the tls dimension: plain. */
  tls?: boolean;
  runs: Measurement[];
  summary: Measurement;
  spread?: unknown;
}

export interface Fit {
  protocol: Protocol;
  tool: Tool;
  cacheMode: CacheMode;
  temperature: Temperature;
  operation: Operation;
  /** The concurrency the page-size sweep ran at. */
  concurrency?: number;
  /** Fitted over TLS cells; absent (older runs) means plain. */
  tls?: boolean;
  metric: string;
  a: number;
  b: number;
  r2: number | null;
  points: { pageSize: number; latencyMs: number }[];
  cellIds?: string[];
}

export interface Headline {
  grpcOverRestP50Warm?: number | null;
  warmHybridOverNoneThroughput?: number | null;
  jsonOverProtobufBodyBytes?: number | null;
  getGroupOverHelloThroughput?: number | null;
  tlsOverPlainP50Rest?: number | null;
  tlsOverPlainP50Grpc?: number | null;
  tlsOverPlainThroughputRest?: number | null;
  tlsOverPlainThroughputGrpc?: number | null;
  [key: string]: unknown;
}

export interface Environment {
  [key: string]: unknown;
}

export interface Run {
  schemaVersion: number;
  runId: string;
  startedAt: string;
  finishedAt?: string;
  profile: { name: string; [key: string]: unknown };
  environment: Environment;
  cells: Cell[];
  fits: Fit[];
  headline: Headline;
  headlineDetail?: unknown;
  notes?: string[];
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

/** A run as the app holds it: either read and valid, or unreadable with a reason. */
export type LoadedRun =
  | { entry: IndexEntry; status: 'ok'; run: Run }
  | { entry: IndexEntry; status: 'unreadable'; reason: string };
