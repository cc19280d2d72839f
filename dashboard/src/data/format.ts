// How every number on screen is printed: three significant digits (measured figures carry no
// more), thousands separators, exact integers for counts, and the unit after the value.
// Used by the tables, tooltips, legends, cards and axis labels alike. Exports (CSV) keep the
// numbers as run.json holds them.

/** A value with its 95 % interval (run.json's Interval); low/high null without one. */
export interface Bounded {
  value: number | null;
  low: number | null;
  high: number | null;
}

export const SIG_DIGITS = 3;

export const UNITS = {
  ms: 'ms',
  us: 'µs',
  rps: 'req/s',
  perSecond: '/s',
  bytes: 'B',
  cores: 'cores',
  pct: '%',
  ratio: '×',
  seconds: 's',
} as const;

/** Units written straight after the number ("0.83×", "12%", "8,000/s"); the others after a space ("3 ms"). */
const TIGHT_UNITS = new Set(['×', '%', '/s']);

function finite(x: number | null | undefined): x is number {
  return typeof x === 'number' && Number.isFinite(x);
}

/** x rounded to `digits` significant digits (0 stays 0). */
export function roundSig(x: number, digits = SIG_DIGITS): number {
  if (x === 0 || !Number.isFinite(x)) return x;
  return Number(x.toPrecision(digits));
}

/** Decimals needed to show x at `digits` significant digits, trailing zeros dropped (0.80 → 1). */
export function decimalsFor(x: number | null | undefined, digits = SIG_DIGITS): number {
  if (!finite(x) || x === 0) return 0;
  const [mantissa, exp] = Math.abs(x).toPrecision(digits).split('e');
  const decimals = (mantissa.split('.')[1] ?? '').replace(/0+$/, '').length;
  return Math.min(12, Math.max(0, decimals - Number(exp ?? 0)));
}

const formatters = new Map<number, Intl.NumberFormat>();
/** x with exactly `decimals` decimals and thousands separators (en-US: 12,300.5). */
export function fixed(x: number, decimals: number): string {
  let f = formatters.get(decimals);
  if (!f) {
    f = new Intl.NumberFormat('en-US', { minimumFractionDigits: decimals, maximumFractionDigits: decimals });
    formatters.set(decimals, f);
  }
  const text = f.format(x);
  return text === '-0' || /^-0\.0*$/.test(text) ? text.slice(1) : text;
}

/** 1.3488720723413612 → "1.35", 0.27335075000000003 → "0.273", 3983.4 → "3,980"; null → "—". */
export function formatNumber(x: number | null | undefined, digits = SIG_DIGITS): string {
  if (!finite(x)) return '—';
  const r = roundSig(x, digits);
  return fixed(r, decimalsFor(r, digits));
}

/** Counts are exact: 12000 → "12,000" (a non-integer is a measured figure: three digits). */
export function formatCount(x: number | null | undefined): string {
  if (!finite(x)) return '—';
  return Number.isInteger(x) ? fixed(x, 0) : formatNumber(x);
}

export function withUnit(text: string, unit: string): string {
  if (!unit || text === '—') return text;
  return TIGHT_UNITS.has(unit) ? `${text}${unit}` : `${text} ${unit}`;
}

/** "0.273 ms", "3,980 req/s", "1.35×". */
export function formatValue(x: number | null | undefined, unit: string): string {
  return withUnit(formatNumber(x), unit);
}

/**
 * A value with its 95 % interval: "0.83× [0.78–0.9]", "3,980 req/s [3,900–4,050]": the value and
 * each bound to three significant digits of its own, as the end-of-run text prints them
 * (report.py interval; both test against loadtest/tests/fixtures/figures-as-text.json). Bounds
 * rounded to the value's decimals printed a server CPU of 96.9 µs as "97" beside the text's "96.9",
 * and a ratio of 1.8 as "1.80× [1.68–2.00]" beside the text's "1.8× [1.68–2]". A ratio (×) that is
 * not 1 gets the digits that keep it off 1: "1.01× [1.004–1.02]"; likewise a figure read against
 * other marks (`marks`: a goal's bound) that it is not: 1.1004 beside ≤ 1.1 is "1.1004", not "1.1".
 * Without bounds (fewer than 2 windows) just the value.
 */
export function formatInterval(
  iv: Bounded | null | undefined,
  unit: string,
  marks: readonly number[] = unit === UNITS.ratio ? [1] : [],
): string {
  if (!iv || !finite(iv.value)) return '—';
  // a ratio is read against 1, a goal's figure against its bound: one that is not the mark never
  // prints as the mark (a bound of 1.004 as "1" would contradict "the interval excludes 1" beside it)
  const show = (x: number) => awayFrom(x, formatNumber(x), marks);
  const value = withUnit(show(iv.value), unit);
  if (!(finite(iv.low) && finite(iv.high))) return value;
  return `${value} [${show(iv.low)}–${show(iv.high)}]`;
}

/** `text` (x printed), or x with the fewest more significant digits that do not round it onto a mark it is not: 1.004 → "1.004" beside 1. */
function awayFrom(x: number, text: string, marks: readonly number[]): string {
  const onAMark = (r: number) => marks.some((m) => r === m && x !== m);
  if (!onAMark(Number(text.replace(/,/g, '')))) return text;
  for (let digits = SIG_DIGITS + 1; digits <= 12; digits++) {
    const r = roundSig(x, digits);
    if (!onAMark(r)) return fixed(r, decimalsFor(r, digits));
  }
  return text;
}

/** Just the bracketed bounds, "[0.78–0.90]", or "" without them (kept off `marks`: formatInterval). */
export function formatBounds(iv: Bounded | null | undefined, marks: readonly number[] = []): string {
  const text = formatInterval(iv, '', marks);
  const i = text.indexOf(' [');
  return i < 0 ? '' : text.slice(i + 1);
}

/** A fraction 0..1 as a percentage: 0.992 → "99.2%". */
export function formatFraction(x: number | null | undefined): string {
  return finite(x) ? withUnit(formatNumber(x * 100), '%') : '—';
}

/** Bytes: "412 B", "6,080 B"; from 100 kB on in kB, MB, GB (powers of 1000). */
export function formatBytes(x: number | null | undefined): string {
  if (!finite(x)) return '—';
  const steps: [number, string][] = [[1e9, 'GB'], [1e6, 'MB'], [1e5, 'kB']];
  for (const [size, unit] of steps) {
    if (Math.abs(x) >= size) return withUnit(formatNumber(x / (size === 1e5 ? 1e3 : size)), unit);
  }
  return withUnit(formatNumber(x), 'B');
}

/** A percentile as its name: 99.9 → "p99.9", 50 → "p50", 0 → "p0". */
export function formatPercentile(p: number): string {
  return `p${Number(p.toFixed(4))}`;
}

/** A percentile as an axis label: 99.99 → "99.99%". */
export function percentileLabel(p: number): string {
  return `${Number(p.toFixed(4))}%`;
}

export type ColumnFormat = 'text' | 'int' | 'num' | 'fraction' | 'r2';

/** A fit's R² at four decimals (0.99994 → "0.9999"): three significant digits would print most as "1". */
export function formatR2(x: number | null | undefined): string {
  return finite(x) ? x.toFixed(4) : '—';
}

/** A table cell: numbers at three digits (units are in the column header), counts exact. */
export function formatCell(v: unknown, kind: ColumnFormat = 'num'): string {
  if (v === null || v === undefined || v === '') return '—';
  if (typeof v !== 'number') return String(v);
  if (kind === 'int') return formatCount(v);
  if (kind === 'fraction') return formatFraction(v);
  if (kind === 'r2') return formatR2(v);
  if (kind === 'text') return String(v);
  return formatNumber(v);
}
