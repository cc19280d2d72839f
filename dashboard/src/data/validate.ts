// Hand-written checks of the results files (run.json schemaVersion 2, see types.ts). They say, with
// a JSON path, what is wrong, so an unreadable run is listed with its reason. Every field of the
// spec that the dashboard reads must be present (null where the spec allows it: "null, never
// omitted"); fields it only shows as text (profile, environment) are checked when present; fields
// the spec does not name are accepted.
import {
  CACHE_MODES,
  MODELS,
  OPERATIONS,
  PROTOCOLS,
  ROLES,
  SUPPORTED_INDEX_VERSIONS,
  SUPPORTED_SCHEMA_VERSION,
  TEMPERATURES,
  TOOLS,
  TRANSPORTS,
  VERDICTS,
  type IndexEntry,
  type ResultsIndex,
  type Run,
} from './types';

export type Validation<T> =
  | { ok: true; value: T }
  /** older: written by an older bench (a lower schemaVersion); the run is listed, not read. */
  | { ok: false; reason: string; older?: { schemaVersion: number } };

class Invalid extends Error {}
class Older extends Error {
  constructor(readonly schemaVersion: number) {
    super(olderBenchMessage(schemaVersion));
  }
}

/** What the dashboard says about a run written by an older bench. */
export function olderBenchMessage(schemaVersion: number): string {
  return `recorded by an older bench (schema ${schemaVersion}): re-run make bench to see it`;
}

type Obj = Record<string, unknown>;

function fail(path: string, what: string, got: unknown): never {
  const shown = got === undefined ? 'missing' : `got ${JSON.stringify(got)?.slice(0, 40)}`;
  throw new Invalid(`${path}: expected ${what}, ${shown}`);
}

function obj(v: unknown, path: string): Obj {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) fail(path, 'an object', v);
  return v as Obj;
}

function arr(v: unknown, path: string): unknown[] {
  if (!Array.isArray(v)) fail(path, 'an array', v);
  return v as unknown[];
}

function num(v: unknown, path: string): number {
  if (typeof v !== 'number' || !Number.isFinite(v)) fail(path, 'a number', v);
  return v as number;
}

function int(v: unknown, path: string): number {
  if (typeof v !== 'number' || !Number.isInteger(v)) fail(path, 'an integer', v);
  return v as number;
}

/** Present, and a number or null. */
function numOrNull(v: unknown, path: string): number | null {
  if (v === null) return null;
  if (typeof v !== 'number' || !Number.isFinite(v)) fail(path, 'a number or null', v);
  return v as number;
}

function intOrNull(v: unknown, path: string): number | null {
  if (v === null) return null;
  if (typeof v !== 'number' || !Number.isInteger(v)) fail(path, 'an integer or null', v);
  return v as number;
}

function bool(v: unknown, path: string): boolean {
  if (typeof v !== 'boolean') fail(path, 'true or false', v);
  return v as boolean;
}

function str(v: unknown, path: string): string {
  if (typeof v !== 'string' || v === '') fail(path, 'a non-empty string', v);
  return v as string;
}

function strOrNull(v: unknown, path: string): string | null {
  if (v === null) return null;
  if (typeof v !== 'string') fail(path, 'a string or null', v);
  return v as string;
}

function oneOf<T extends string>(v: unknown, allowed: readonly T[], path: string): T {
  if (typeof v !== 'string' || !(allowed as readonly string[]).includes(v)) {
    fail(path, `one of ${allowed.join('|')}`, v);
  }
  return v as T;
}

/** Each of `keys` present on `o`, a number or null. */
function numsOrNull(o: Obj, keys: readonly string[], path: string): void {
  for (const k of keys) numOrNull(o[k], `${path}.${k}`);
}

function checkSchemaVersion(v: unknown, path: string): void {
  const version = int(v, path);
  if (version > SUPPORTED_SCHEMA_VERSION) {
    throw new Invalid(
      `written with schema version ${version}, newer than this dashboard reads ` +
        `(version ${SUPPORTED_SCHEMA_VERSION}); update the dashboard`,
    );
  }
  if (version >= 1 && version < SUPPORTED_SCHEMA_VERSION) throw new Older(version);
  if (version !== SUPPORTED_SCHEMA_VERSION) fail(path, `${SUPPORTED_SCHEMA_VERSION}`, v);
}

/** {value, low, high}: numbers or null. */
function checkInterval(v: unknown, path: string): void {
  const o = obj(v, path);
  numsOrNull(o, ['value', 'low', 'high'], path);
  const { value, low, high } = o as { value: number | null; low: number | null; high: number | null };
  if (low !== null && high !== null && low > high) {
    throw new Invalid(`${path}: low ${low} is above high ${high}`);
  }
  if (value === null && (low !== null || high !== null)) {
    throw new Invalid(`${path}: an interval without a value`);
  }
}

function checkFlags(v: unknown, path: string): void {
  arr(v, path).forEach((f, i) => {
    const o = obj(f, `${path}[${i}]`);
    str(o.code, `${path}[${i}].code`);
    str(o.reason, `${path}[${i}].reason`);
  });
}

function checkHitRatio(v: unknown, path: string): void {
  numsOrNull(obj(v, path), ['l1', 'l2', 'overall'], path);
}

function checkWindow(v: unknown, path: string): void {
  const w = obj(v, path);
  for (const k of ['start', 'round', 'order', 'requests', 'ok', 'errors']) int(w[k], `${path}.${k}`);
  num(w.seconds, `${path}.seconds`);
  num(w.throughputRps, `${path}.throughputRps`);
  numsOrNull(obj(w.latencyMs, `${path}.latencyMs`), ['p50', 'p99', 'max'], `${path}.latencyMs`);
  intOrNull(w.droppedIterations, `${path}.droppedIterations`);
  numOrNull(w.achievedRate, `${path}.achievedRate`);
  checkHitRatio(w.hitRatio, `${path}.hitRatio`);
  numsOrNull(
    obj(w.cpuSeconds, `${path}.cpuSeconds`),
    ['rest-service', 'grpc-service', 'mariadb', 'redis', 'generator', 'other'],
    `${path}.cpuSeconds`,
  );
  numOrNull(w.generatorCores, `${path}.generatorCores`);
  const windowJvm = obj(w.jvm, `${path}.jvm`);
  numsOrNull(windowJvm, ['gcPauseMs', 'gcPauses', 'jitMs'], `${path}.jvm`);
  if (windowJvm.jitCpuMs !== undefined) numOrNull(windowJvm.jitCpuMs, `${path}.jvm.jitCpuMs`);
  numsOrNull(obj(w.db, `${path}.db`), ['rowsRead', 'queries'], `${path}.db`);
  arr(w.timeline, `${path}.timeline`).forEach((s, i) => {
    const o = obj(s, `${path}.timeline[${i}]`);
    num(o.t, `${path}.timeline[${i}].t`);
    numsOrNull(o, ['rps', 'p50', 'p99'], `${path}.timeline[${i}]`);
  });
  checkFlags(w.flags, `${path}.flags`);
}

function checkSummary(v: unknown, path: string): void {
  const s = obj(v, path);
  for (const k of ['requests', 'ok', 'errors', 'samples']) int(s[k], `${path}.${k}`);
  num(s.errorRate, `${path}.errorRate`);
  checkInterval(s.throughputRps, `${path}.throughputRps`);
  numsOrNull(
    obj(s.latencyMs, `${path}.latencyMs`),
    ['mean', 'p50', 'p90', 'p95', 'p99', 'p999', 'p9999', 'max'],
    `${path}.latencyMs`,
  );
  const li = obj(s.latencyIntervalMs, `${path}.latencyIntervalMs`);
  checkInterval(li.p50, `${path}.latencyIntervalMs.p50`);
  checkInterval(li.p99, `${path}.latencyIntervalMs.p99`);
  let last = -1;
  arr(s.spectrum, `${path}.spectrum`).forEach((p, i) => {
    const o = obj(p, `${path}.spectrum[${i}]`);
    const pct = num(o.percentile, `${path}.spectrum[${i}].percentile`);
    if (pct < 0 || pct > 100) fail(`${path}.spectrum[${i}].percentile`, 'a percentile from 0 to 100', pct);
    if (pct <= last) throw new Invalid(`${path}.spectrum[${i}].percentile: ${pct} does not ascend (after ${last})`);
    last = pct;
    num(o.ms, `${path}.spectrum[${i}].ms`);
  });
  numsOrNull(s, ['bodyBytes', 'wireBytesSentPerRequest', 'wireBytesReceivedPerRequest', 'generatorCores', 'achievedRate'], path);
  intOrNull(s.droppedIterations, `${path}.droppedIterations`);
  checkHitRatio(s.hitRatio, `${path}.hitRatio`);
  const cpu = obj(s.cpuUsPerRequest, `${path}.cpuUsPerRequest`);
  numsOrNull(cpu, ['service', 'mariadb', 'redis', 'generator'], `${path}.cpuUsPerRequest`);
  checkInterval(cpu.server, `${path}.cpuUsPerRequest.server`);
  const cellJvm = obj(s.jvm, `${path}.jvm`);
  numsOrNull(cellJvm, ['gcPauseMs', 'jitMs'], `${path}.jvm`);
  // jitCpuMs (the compiler threads' CPU) came after the first schema-2 runs: optional
  if (cellJvm.jitCpuMs !== undefined) numOrNull(cellJvm.jitCpuMs, `${path}.jvm.jitCpuMs`);
  numsOrNull(obj(s.db, `${path}.db`), ['rowsReadPerRequest', 'queriesPerRequest'], `${path}.db`);
}

function checkCell(v: unknown, path: string): string {
  const c = obj(v, path);
  const id = str(c.id, `${path}.id`);
  oneOf(c.protocol, PROTOCOLS, `${path}.protocol`);
  oneOf(c.tool, TOOLS, `${path}.tool`);
  oneOf(c.transport, TRANSPORTS, `${path}.transport`);
  const op = oneOf(c.operation, OPERATIONS, `${path}.operation`);
  intOrNull(c.pageSize, `${path}.pageSize`);
  const mode = oneOf(c.cacheMode, CACHE_MODES, `${path}.cacheMode`);
  const temp = oneOf(c.temperature, TEMPERATURES, `${path}.temperature`);
  // No cache means no temperature; Hello touches no cache, so it has none whatever the mode.
  if (mode === 'none' && temp !== 'none') fail(`${path}.temperature`, '"none" for cacheMode none', temp);
  if (temp === 'none' && mode !== 'none' && op !== 'Hello') {
    fail(`${path}.temperature`, `cold|warm for cacheMode ${mode}`, temp);
  }
  const model = oneOf(c.model, MODELS, `${path}.model`);
  int(c.concurrency, `${path}.concurrency`);
  int(c.connections, `${path}.connections`);
  const rate = numOrNull(c.targetRate, `${path}.targetRate`);
  if (model === 'open' && rate === null) fail(`${path}.targetRate`, 'a number for the open model', rate);
  num(c.durationSeconds, `${path}.durationSeconds`);
  num(c.warmupSeconds, `${path}.warmupSeconds`);
  int(c.repetitions, `${path}.repetitions`);
  int(c.starts, `${path}.starts`);
  bool(c.tls, `${path}.tls`);
  strOrNull(c.sweep, `${path}.sweep`);
  oneOf(c.role, ROLES, `${path}.role`);
  arr(c.windows, `${path}.windows`).forEach((w, i) => checkWindow(w, `${path}.windows[${i}]`));
  checkSummary(c.summary, `${path}.summary`);
  checkFlags(c.flags, `${path}.flags`);
  bool(c.headlineEligible, `${path}.headlineEligible`);
  return id;
}

function checkSweep(v: unknown, path: string, cellIds: Set<string>): void {
  const s = obj(v, path);
  str(s.id, `${path}.id`);
  oneOf(s.protocol, PROTOCOLS, `${path}.protocol`);
  oneOf(s.tool, TOOLS, `${path}.tool`);
  oneOf(s.operation, OPERATIONS, `${path}.operation`);
  intOrNull(s.pageSize, `${path}.pageSize`);
  oneOf(s.cacheMode, CACHE_MODES, `${path}.cacheMode`);
  oneOf(s.temperature, TEMPERATURES, `${path}.temperature`);
  bool(s.tls, `${path}.tls`);
  const limits = obj(s.limits, `${path}.limits`);
  num(limits.p99Ms, `${path}.limits.p99Ms`);
  num(limits.dropRate, `${path}.limits.dropRate`);
  arr(s.points, `${path}.points`).forEach((p, i) => {
    const at = `${path}.points[${i}]`;
    const o = obj(p, at);
    const id = str(o.cellId, `${at}.cellId`);
    if (!cellIds.has(id)) throw new Invalid(`${at}.cellId: no cell "${id}" in $.cells`);
    num(o.targetRate, `${at}.targetRate`);
    numsOrNull(o, ['achievedRate', 'throughputRps', 'p50', 'p99', 'p999', 'errorRate'], at);
    intOrNull(o.droppedIterations, `${at}.droppedIterations`);
    checkFlags(o.flags, `${at}.flags`);
  });
  if (s.knee === undefined) fail(`${path}.knee`, 'an object or null', s.knee);
  if (s.knee !== null) {
    const k = obj(s.knee, `${path}.knee`);
    num(k.targetRate, `${path}.knee.targetRate`);
    num(k.throughputRps, `${path}.knee.throughputRps`);
    str(k.reason, `${path}.knee.reason`);
  }
}

function checkFit(v: unknown, path: string): void {
  const f = obj(v, path);
  oneOf(f.protocol, PROTOCOLS, `${path}.protocol`);
  oneOf(f.tool, TOOLS, `${path}.tool`);
  oneOf(f.cacheMode, CACHE_MODES, `${path}.cacheMode`);
  oneOf(f.temperature, TEMPERATURES, `${path}.temperature`);
  oneOf(f.operation, OPERATIONS, `${path}.operation`);
  int(f.concurrency, `${path}.concurrency`);
  bool(f.tls, `${path}.tls`);
  str(f.metric, `${path}.metric`);
  num(f.a, `${path}.a`);
  num(f.b, `${path}.b`);
  numOrNull(f.r2, `${path}.r2`);
  if (f.serverCpu !== undefined && f.serverCpu !== null) {
    const cpu = obj(f.serverCpu, `${path}.serverCpu`);
    num(cpu.a, `${path}.serverCpu.a`);
    num(cpu.b, `${path}.serverCpu.b`);
    numOrNull(cpu.r2, `${path}.serverCpu.r2`);
  }
  arr(f.points, `${path}.points`).forEach((p, i) => {
    const po = obj(p, `${path}.points[${i}]`);
    num(po.pageSize, `${path}.points[${i}].pageSize`);
    num(po.latencyMs, `${path}.points[${i}].latencyMs`);
  });
  arr(f.cellIds, `${path}.cellIds`).forEach((id, i) => str(id, `${path}.cellIds[${i}]`));
}

function checkHeadline(v: unknown, path: string): void {
  const h = obj(v, path);
  str(h.description, `${path}.description`);
  numsOrNull(h, ['value', 'low', 'high'], path);
  // A verdict without its reason (or a value) is still shown: the card says what the verdict means.
  oneOf(h.verdict, VERDICTS, `${path}.verdict`);
  strOrNull(h.reason, `${path}.reason`);
  arr(h.pairs, `${path}.pairs`).forEach((p, i) => {
    const at = `${path}.pairs[${i}]`;
    const o = obj(p, at);
    str(o.numeratorCellId, `${at}.numeratorCellId`);
    str(o.denominatorCellId, `${at}.denominatorCellId`);
    numsOrNull(o, ['ratio', 'low', 'high'], at);
    bool(o.excluded, `${at}.excluded`);
    strOrNull(o.excludedWhy, `${at}.excludedWhy`);
  });
}

/** Shown as text only: checked when present. */
function checkEnvironment(v: unknown, path: string): void {
  const e = obj(v, path);
  if (e.placement !== undefined && e.placement !== null) {
    const p = obj(e.placement, `${path}.placement`);
    oneOf(p.method, ['taskset', 'none'] as const, `${path}.placement.method`);
    for (const k of ['services', 'servers', 'generator', 'note']) {
      if (p[k] !== undefined) strOrNull(p[k], `${path}.placement.${k}`);
    }
  }
  if (e.jvm !== undefined && e.jvm !== null) {
    const j = obj(e.jvm, `${path}.jvm`);
    if (j.options !== undefined) {
      arr(j.options, `${path}.jvm.options`).forEach((o, i) => {
        if (typeof o !== 'string') fail(`${path}.jvm.options[${i}]`, 'a string', o);
      });
    }
    if (j.heapMaxBytes !== undefined) numOrNull(j.heapMaxBytes, `${path}.jvm.heapMaxBytes`);
  }
}

function run<T>(check: () => T): Validation<T> {
  try {
    return { ok: true, value: check() };
  } catch (e) {
    if (e instanceof Older) return { ok: false, reason: e.message, older: { schemaVersion: e.schemaVersion } };
    if (e instanceof Invalid) return { ok: false, reason: e.message };
    throw e;
  }
}

/** Checks a parsed run.json (schemaVersion 2). */
export function validateRun(data: unknown): Validation<Run> {
  return run(() => {
    const r = obj(data, '$');
    checkSchemaVersion(r.schemaVersion, '$.schemaVersion');
    str(r.runId, '$.runId');
    str(r.startedAt, '$.startedAt');
    if (r.finishedAt !== undefined) strOrNull(r.finishedAt, '$.finishedAt');
    const profile = obj(r.profile, '$.profile');
    str(profile.name, '$.profile.name');
    checkEnvironment(r.environment, '$.environment');
    const ids = new Set<string>();
    arr(r.cells, '$.cells').forEach((c, i) => {
      const id = checkCell(c, `$.cells[${i}]`);
      if (ids.has(id)) throw new Invalid(`$.cells[${i}].id: "${id}" is used by another cell too`);
      ids.add(id);
    });
    arr(r.sweeps, '$.sweeps').forEach((s, i) => checkSweep(s, `$.sweeps[${i}]`, ids));
    arr(r.fits, '$.fits').forEach((f, i) => checkFit(f, `$.fits[${i}]`));
    const headline = obj(r.headline, '$.headline');
    for (const k of Object.keys(headline)) checkHeadline(headline[k], `$.headline.${k}`);
    arr(r.notes, '$.notes').forEach((n, i) => {
      if (typeof n !== 'string') fail(`$.notes[${i}]`, 'a string', n);
    });
    return r as unknown as Run;
  });
}

/** Checks a parsed results/index.json. */
export function validateIndex(data: unknown): Validation<ResultsIndex> {
  return run(() => {
    const idx = obj(data, '$');
    const version = int(idx.schemaVersion, '$.schemaVersion');
    const newest = Math.max(...SUPPORTED_INDEX_VERSIONS);
    if (version > newest) {
      throw new Invalid(`written with schema version ${version}, newer than this dashboard reads (version ${newest}); update the dashboard`);
    }
    if (!SUPPORTED_INDEX_VERSIONS.includes(version)) fail('$.schemaVersion', SUPPORTED_INDEX_VERSIONS.join(' or '), version);
    const runs: IndexEntry[] = arr(idx.runs, '$.runs').map((e, i) => {
      const o = obj(e, `$.runs[${i}]`);
      const profile = o.profile;
      return {
        runId: str(o.runId, `$.runs[${i}].runId`),
        path: str(o.path, `$.runs[${i}].path`),
        startedAt: typeof o.startedAt === 'string' ? o.startedAt : undefined,
        profile:
          typeof profile === 'string'
            ? profile
            : typeof profile === 'object' && profile !== null && 'name' in profile
              ? String((profile as Obj).name)
              : undefined,
        gitCommit: typeof o.gitCommit === 'string' ? o.gitCommit : undefined,
        cellCount: typeof o.cellCount === 'number' ? o.cellCount : undefined,
      };
    });
    return { schemaVersion: version, runs };
  });
}

/** Parses JSON text and checks it as a run; a syntax error is a reason too. */
export function parseRun(text: string): Validation<Run> {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    return { ok: false, reason: `not valid JSON (${(e as Error).message})` };
  }
  return validateRun(data);
}
