// Hand-written checks of the results files. They check what the dashboard reads and say,
// with a JSON path, what is wrong, so an unreadable run can be shown with its reason.
import {
  CACHE_MODES,
  MODELS,
  OPERATIONS,
  PROTOCOLS,
  SUPPORTED_SCHEMA_VERSION,
  TEMPERATURES,
  TOOLS,
  type IndexEntry,
  type ResultsIndex,
  type Run,
} from './types';

export type Validation<T> = { ok: true; value: T } | { ok: false; reason: string };

class Invalid extends Error {}

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

function numOrNull(v: unknown, path: string): number | null {
  if (v === null) return null;
  return num(v, path);
}

/** A field that may be absent or null, but when present must be a number. */
function optNum(o: Obj, key: string, path: string): void {
  if (o[key] !== undefined && o[key] !== null) num(o[key], `${path}.${key}`);
}

/** A field that may be absent (older runs), but when present must be true or false. */
function optBool(o: Obj, key: string, path: string): void {
  if (o[key] !== undefined && typeof o[key] !== 'boolean') fail(`${path}.${key}`, 'true or false', o[key]);
}

function str(v: unknown, path: string): string {
  if (typeof v !== 'string' || v === '') fail(path, 'a non-empty string', v);
  return v as string;
}

function oneOf<T extends string>(v: unknown, allowed: readonly T[], path: string): T {
  if (typeof v !== 'string' || !(allowed as readonly string[]).includes(v)) {
    fail(path, `one of ${allowed.join('|')}`, v);
  }
  return v as T;
}

function checkSchemaVersion(v: unknown, path: string): void {
  const version = num(v, path);
  if (version > SUPPORTED_SCHEMA_VERSION) {
    throw new Invalid(
      `written with schema version ${version}, newer than this dashboard reads ` +
        `(version ${SUPPORTED_SCHEMA_VERSION}); update the dashboard`,
    );
  }
  if (version !== SUPPORTED_SCHEMA_VERSION) fail(path, `${SUPPORTED_SCHEMA_VERSION}`, v);
}

function checkMeasurement(v: unknown, path: string): void {
  const m = obj(v, path);
  num(m.requests, `${path}.requests`);
  num(m.errors, `${path}.errors`);
  num(m.errorRate, `${path}.errorRate`);
  num(m.throughputRps, `${path}.throughputRps`);
  const lat = obj(m.latencyMs, `${path}.latencyMs`);
  // null when no request of the window succeeded
  for (const k of ['mean', 'p50', 'p90', 'p95', 'p99', 'p999', 'max']) {
    numOrNull(lat[k], `${path}.latencyMs.${k}`);
  }
  numOrNull(m.bodyBytes, `${path}.bodyBytes`);
  numOrNull(m.wireBytesSentPerRequest, `${path}.wireBytesSentPerRequest`);
  numOrNull(m.wireBytesReceivedPerRequest, `${path}.wireBytesReceivedPerRequest`);
  const hit = obj(m.hitRatio, `${path}.hitRatio`);
  for (const k of ['l1', 'l2', 'overall']) numOrNull(hit[k], `${path}.hitRatio.${k}`);
  for (const k of ['loadGenCpuSeconds', 'loadGenCpuPercent', 'droppedIterations', 'achievedRate']) {
    optNum(m, k, path);
  }
}

function checkCell(v: unknown, path: string): void {
  const c = obj(v, path);
  str(c.id, `${path}.id`);
  oneOf(c.protocol, PROTOCOLS, `${path}.protocol`);
  oneOf(c.tool, TOOLS, `${path}.tool`);
  const op = oneOf(c.operation, OPERATIONS, `${path}.operation`);
  numOrNull(c.pageSize, `${path}.pageSize`);
  const mode = oneOf(c.cacheMode, CACHE_MODES, `${path}.cacheMode`);
  const temp = oneOf(c.temperature, TEMPERATURES, `${path}.temperature`);
  // No cache means no temperature; Hello touches no cache, so it has none whatever the mode.
  if (mode === 'none' && temp !== 'none') fail(`${path}.temperature`, '"none" for cacheMode none', temp);
  if (temp === 'none' && mode !== 'none' && op !== 'Hello') {
    fail(`${path}.temperature`, `cold|warm for cacheMode ${mode}`, temp);
  }
  oneOf(c.model, MODELS, `${path}.model`);
  num(c.concurrency, `${path}.concurrency`);
  for (const k of ['connections', 'targetRate', 'durationSeconds', 'warmupSeconds', 'repetitions']) {
    optNum(c, k, path);
  }
  // absent in runs written before the tls dimension: those cells ran plain
  optBool(c, 'tls', path);
  arr(c.runs, `${path}.runs`).forEach((r, i) => checkMeasurement(r, `${path}.runs[${i}]`));
  checkMeasurement(c.summary, `${path}.summary`);
}

function checkFit(v: unknown, path: string): void {
  const f = obj(v, path);
  optBool(f, 'tls', path);
  oneOf(f.protocol, PROTOCOLS, `${path}.protocol`);
  oneOf(f.tool, TOOLS, `${path}.tool`);
  oneOf(f.cacheMode, CACHE_MODES, `${path}.cacheMode`);
  oneOf(f.temperature, TEMPERATURES, `${path}.temperature`);
  oneOf(f.operation, OPERATIONS, `${path}.operation`);
  optNum(f, 'concurrency', path);
  str(f.metric, `${path}.metric`);
  num(f.a, `${path}.a`);
  num(f.b, `${path}.b`);
  numOrNull(f.r2 ?? null, `${path}.r2`);
  arr(f.points, `${path}.points`).forEach((p, i) => {
    const po = obj(p, `${path}.points[${i}]`);
    num(po.pageSize, `${path}.points[${i}].pageSize`);
    num(po.latencyMs, `${path}.points[${i}].latencyMs`);
  });
}

function run<T>(check: () => T): Validation<T> {
  try {
    return { ok: true, value: check() };
  } catch (e) {
    if (e instanceof Invalid) return { ok: false, reason: e.message };
    throw e;
  }
}

/** Checks a parsed run.json. */
export function validateRun(data: unknown): Validation<Run> {
  return run(() => {
    const r = obj(data, '$');
    checkSchemaVersion(r.schemaVersion, '$.schemaVersion');
    str(r.runId, '$.runId');
    str(r.startedAt, '$.startedAt');
    const profile = obj(r.profile, '$.profile');
    str(profile.name, '$.profile.name');
    obj(r.environment, '$.environment');
    arr(r.cells, '$.cells').forEach((c, i) => checkCell(c, `$.cells[${i}]`));
    arr(r.fits, '$.fits').forEach((f, i) => checkFit(f, `$.fits[${i}]`));
    const headline = obj(r.headline, '$.headline');
    for (const k of Object.keys(headline)) {
      if (headline[k] !== null && typeof headline[k] !== 'number') {
        fail(`$.headline.${k}`, 'a number or null', headline[k]);
      }
    }
    if (r.notes !== undefined) {
      arr(r.notes, '$.notes').forEach((n, i) => {
        if (typeof n !== 'string') fail(`$.notes[${i}]`, 'a string', n);
      });
    }
    return r as unknown as Run;
  });
}

/** Checks a parsed results/index.json. */
export function validateIndex(data: unknown): Validation<ResultsIndex> {
  return run(() => {
    const idx = obj(data, '$');
    checkSchemaVersion(idx.schemaVersion, '$.schemaVersion');
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
    return { schemaVersion: idx.schemaVersion as number, runs };
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
