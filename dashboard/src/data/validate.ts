// Checks of the results files, so that a run that cannot be read is listed with its reason (a JSON
// path and what is wrong there) while the others work. run.json: its schemaVersion first (an older
// bench's run is listed as such, a newer one asks for a newer dashboard), then the schema the bench
// validates against before it writes (loadtest/schema/run.schema.json, with ajv: every figure
// present, null where it could not be measured, no field the schema does not name), then what a
// JSON Schema cannot say (checkMeaning). index.json: by hand, leniently (older index versions too).
import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import { runSchema } from './runSchema.generated';
import { SUPPORTED_INDEX_VERSIONS, SUPPORTED_SCHEMA_VERSION, type IndexEntry, type Interval, type ResultsIndex, type Run } from './types';

export type Validation<T> =
  | { ok: true; value: T }
  /** older: written by an older bench (a lower schemaVersion); the run is listed, not read. */
  | { ok: false; reason: string; older?: { schemaVersion: number } };

/** What the dashboard says about a run written by an older bench. */
export function olderBenchMessage(schemaVersion: number): string {
  return `recorded by an older bench (schema ${schemaVersion}): re-run make bench to see it`;
}

const invalid = (reason: string): Validation<never> => ({ ok: false, reason });

const newerMessage = (version: number, newest: number) =>
  `written with schema version ${version}, newer than this dashboard reads (version ${newest}); update the dashboard`;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** "got 12", "got \"soap\"" or "missing". */
const shown = (v: unknown) => (v === undefined ? 'missing' : `got ${JSON.stringify(v)?.slice(0, 40)}`);

// ---------- run.json: the schema ----------

let compiled: ValidateFunction | undefined;
/** Compiled on first use; verbose: each error carries the schema it broke, for the message. */
function schemaCheck(): ValidateFunction {
  compiled ??= new Ajv2020({ verbose: true, allowUnionTypes: true }).compile(runSchema);
  return compiled;
}

/** "/cells/3/summary" as "$.cells[3].summary". */
function jsonPath(pointer: string): string {
  const parts = pointer.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  return '$' + parts.map((p) => (/^\d+$/.test(p) ? `[${p}]` : `.${p}`)).join('');
}

/** Follows a "#/$defs/…" reference within the schema. */
function resolved(s: Obj): Obj {
  if (typeof s.$ref !== 'string') return s;
  const target = s.$ref.slice(2).split('/').reduce<unknown>((o, k) => (isObj(o) ? o[k] : undefined), runSchema);
  return isObj(target) ? resolved(target) : {};
}

const TYPE_WORDS: Record<string, string> = {
  object: 'an object', array: 'an array', number: 'a number', integer: 'an integer', boolean: 'true or false', null: 'null',
};

/** What a subschema allows, in words: "a number or null", "one of rest|grpc", "2". */
function allowed(schema: unknown): string {
  const s = isObj(schema) ? resolved(schema) : {};
  if (s.const !== undefined) return JSON.stringify(s.const);
  if (Array.isArray(s.enum)) return `one of ${s.enum.join('|')}`;
  const alternatives = s.oneOf ?? s.anyOf;
  if (Array.isArray(alternatives)) return alternatives.map(allowed).join(' or ');
  const types = Array.isArray(s.type) ? s.type : [s.type];
  const words = types.map((t) =>
    t === 'string' ? (typeof s.minLength === 'number' && s.minLength > 0 ? 'a non-empty string' : 'a string') : TYPE_WORDS[String(t)],
  );
  return words.every(Boolean) ? words.join(' or ') : 'what the schema allows';
}

/** One ajv error as "<JSON path>: expected …, got …". */
function describe(e: ErrorObject): string {
  const at = jsonPath(e.instancePath);
  const p = e.params as Obj;
  switch (e.keyword) {
    case 'required': {
      const name = String(p.missingProperty);
      const properties = isObj(e.parentSchema?.properties) ? e.parentSchema.properties : {};
      return `${jsonPath(`${e.instancePath}/${name}`)}: expected ${allowed(properties[name])}, missing`;
    }
    case 'additionalProperties':
      return `${jsonPath(`${e.instancePath}/${String(p.additionalProperty)}`)}: a field run.json does not have (schema version ${SUPPORTED_SCHEMA_VERSION})`;
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return `${at}: expected ${String(p.comparison)} ${String(p.limit)}, ${shown(e.data)}`;
    case 'pattern':
      return `${at}: expected a string matching ${String(p.pattern)}, ${shown(e.data)}`;
    case 'type':
    case 'const':
    case 'enum':
    case 'oneOf':
    case 'anyOf':
    case 'minLength':
      return `${at}: expected ${allowed(e.parentSchema)}, ${shown(e.data)}`;
    default:
      return `${at}: ${e.message ?? e.keyword}, ${shown(e.data)}`;
  }
}

let rules: Map<unknown, string> | undefined;
/**
 * The rules across fields (allOf: if/then, e.g. "ghz drives gRPC only") by every subschema of their
 * `then`: ajv's errors carry the subschema they broke (verbose), the description is the rule's.
 */
function ruleOf(schema: unknown): string | undefined {
  if (!rules) {
    const found = new Map<unknown, string>();
    const under = (node: unknown, rule: string) => {
      if (typeof node !== 'object' || node === null) return;
      found.set(node, rule);
      for (const v of Object.values(node)) under(v, rule);
    };
    const walk = (node: unknown) => {
      if (typeof node !== 'object' || node === null) return;
      if (isObj(node) && isObj(node.then) && typeof node.description === 'string') under(node.then, node.description);
      for (const v of Object.values(node)) walk(v);
    };
    walk(runSchema);
    rules = found;
  }
  return rules.get(schema);
}

/**
 * The first thing wrong. ajv (allErrors off) stops at it, after the failing branches of a oneOf or
 * anyOf: alternatives for one value (the knee: null or an object) are named together; a broken
 * rule across fields is named after what broke it.
 */
function schemaReason(errors: ErrorObject[]): string {
  const outer = errors[errors.length - 1];
  const sameValue =
    (outer.keyword === 'oneOf' || outer.keyword === 'anyOf') && errors.every((e) => e.instancePath === outer.instancePath);
  const message = describe(sameValue ? outer : errors[0]);
  const rule = errors.map((e) => ruleOf(e.parentSchema)).find(Boolean);
  return rule ? `${message} (${rule})` : message;
}

// ---------- run.json: what the schema cannot say ----------

/** An interval's bounds in order, and none without a value. */
function intervalProblem(i: Interval): string | null {
  if (i.low !== null && i.high !== null && i.low > i.high) return `low ${i.low} is above high ${i.high}`;
  if (i.value === null && (i.low !== null || i.high !== null)) return 'an interval without a value';
  return null;
}

/** Unique cell ids, sweeps of cells of the run, intervals in order, spectra ascending. */
function checkMeaning(run: Run): string | null {
  const ids = new Set<string>();
  for (const [i, c] of run.cells.entries()) {
    if (ids.has(c.id)) return `$.cells[${i}].id: "${c.id}" is used by another cell too`;
    ids.add(c.id);
    const at = `$.cells[${i}].summary`;
    const s = c.summary;
    const intervals: [string, Interval][] = [
      ['throughputRps', s.throughputRps],
      ['latencyIntervalMs.p50', s.latencyIntervalMs.p50],
      ['latencyIntervalMs.p99', s.latencyIntervalMs.p99],
      ['cpuUsPerRequest.server', s.cpuUsPerRequest.server],
    ];
    for (const [name, interval] of intervals) {
      const problem = intervalProblem(interval);
      if (problem) return `${at}.${name}: ${problem}`;
    }
    const after = s.spectrum.findIndex((p, j) => j > 0 && p.percentile <= s.spectrum[j - 1].percentile);
    if (after > 0) {
      const [p, last] = [s.spectrum[after].percentile, s.spectrum[after - 1].percentile];
      return `${at}.spectrum[${after}].percentile: ${p} does not ascend (after ${last})`;
    }
  }
  for (const [i, sweep] of run.sweeps.entries()) {
    const j = sweep.points.findIndex((p) => !ids.has(p.cellId));
    if (j >= 0) return `$.sweeps[${i}].points[${j}].cellId: no cell "${sweep.points[j].cellId}" in $.cells`;
  }
  return null;
}

/** Checks a parsed run.json (schemaVersion 2). */
export function validateRun(data: unknown): Validation<Run> {
  const version = isObj(data) ? data.schemaVersion : undefined;
  if (typeof version === 'number' && Number.isInteger(version)) {
    if (version > SUPPORTED_SCHEMA_VERSION) return invalid(newerMessage(version, SUPPORTED_SCHEMA_VERSION));
    if (version >= 1 && version < SUPPORTED_SCHEMA_VERSION) {
      return { ok: false, reason: olderBenchMessage(version), older: { schemaVersion: version } };
    }
  }
  const check = schemaCheck();
  if (!check(data)) return invalid(schemaReason(check.errors ?? []));
  const run = data as Run;
  const problem = checkMeaning(run);
  return problem ? invalid(problem) : { ok: true, value: run };
}

/** Parses JSON text and checks it as a run; a syntax error is a reason too. */
export function parseRun(text: string): Validation<Run> {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    return invalid(`not valid JSON (${(e as Error).message})`);
  }
  return validateRun(data);
}

// ---------- index.json ----------

/** A string when it is one. */
const text = (v: unknown) => (typeof v === 'string' ? v : undefined);

/** Checks a parsed results/index.json: the version, and a run id and path for each run. */
export function validateIndex(data: unknown): Validation<ResultsIndex> {
  if (!isObj(data)) return invalid(`$: expected an object, ${shown(data)}`);
  const version = data.schemaVersion;
  if (typeof version !== 'number' || !Number.isInteger(version)) return invalid(`$.schemaVersion: expected an integer, ${shown(version)}`);
  const newest = Math.max(...SUPPORTED_INDEX_VERSIONS);
  if (version > newest) return invalid(newerMessage(version, newest));
  if (!SUPPORTED_INDEX_VERSIONS.includes(version)) {
    return invalid(`$.schemaVersion: expected ${SUPPORTED_INDEX_VERSIONS.join(' or ')}, ${shown(version)}`);
  }
  if (!Array.isArray(data.runs)) return invalid(`$.runs: expected an array, ${shown(data.runs)}`);
  const runs: IndexEntry[] = [];
  for (const [i, e] of data.runs.entries()) {
    if (!isObj(e)) return invalid(`$.runs[${i}]: expected an object, ${shown(e)}`);
    for (const key of ['runId', 'path']) {
      if (!text(e[key])) return invalid(`$.runs[${i}].${key}: expected a non-empty string, ${shown(e[key])}`);
    }
    const profile = isObj(e.profile) && 'name' in e.profile ? String(e.profile.name) : text(e.profile);
    runs.push({
      runId: e.runId as string,
      path: e.path as string,
      startedAt: text(e.startedAt),
      profile,
      gitCommit: text(e.gitCommit),
      cellCount: typeof e.cellCount === 'number' ? e.cellCount : undefined,
    });
  }
  return { ok: true, value: { schemaVersion: version, runs } };
}
