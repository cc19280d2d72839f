// The types the app uses. run.json's are generated from loadtest/schema/run.schema.json
// (run.generated.ts, `npm run gen:types`); this file only names them and adds what the schema does
// not say: the orders the views list things in, the index (results/index.json), and a run as the app
// holds it. Units: milliseconds unless the name says otherwise (Seconds, Us = microseconds), rates
// per second, sizes in bytes, CPU in seconds or cores. A figure that could not be measured is null.
import type * as Schema from './run.generated';

export type { Cell, Fit, Flag, Interval, OverloadGoal, OverloadPair, OverloadStep, OverloadWire, Summary, Sweep, WatchCell } from './run.generated';

/** One headline figure (a ratio, its interval and verdict); the schema's `headline` holds them by name. */
export type Headline = Schema.HeadlineFigure;

/**
 * A run as validate.ts hands it over. The headline figures are looked up by name (the Overview
 * also shows names it has no label for), so a map rather than the schema's list of names.
 */
export type Run = Omit<Schema.Run, 'headline'> & { headline: Record<string, Headline> };

export type Protocol = Schema.Cell['protocol'];
export type Tool = Schema.Cell['tool'];
export type Transport = Schema.Cell['transport'];
export type Operation = Schema.Cell['operation'];
export type CacheMode = Schema.Cell['cacheMode'];
export type Temperature = Schema.Cell['temperature'];
export type LoadModel = Schema.Cell['model'];
export type Role = Schema.Cell['role'];
export type Verdict = Headline['verdict'];

/** The run.json version this dashboard reads. */
export const SUPPORTED_SCHEMA_VERSION: Schema.Run['schemaVersion'] = 2;
/** index.json versions this dashboard reads (the index did not change with run.json v2). */
export const SUPPORTED_INDEX_VERSIONS = [1, 2];

/** Every member of a union, in the order the views list them: a record, so none can be missing or extra. */
const inOrder = <T extends string>(members: Record<T, true>): T[] => Object.keys(members) as T[];

export const PROTOCOLS = inOrder<Protocol>({ rest: true, grpc: true });
export const TOOLS = inOrder<Tool>({ k6: true, ghz: true, h2load: true, oha: true });
export const OPERATIONS = inOrder<Operation>({ GetGroup: true, ListGroups: true, Hello: true });
export const CACHE_MODES = inOrder<CacheMode>({ none: true, local: true, redis: true, hybrid: true });
export const TEMPERATURES = inOrder<Temperature>({ cold: true, warm: true, none: true });
export const MODELS = inOrder<LoadModel>({ closed: true, open: true });

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
