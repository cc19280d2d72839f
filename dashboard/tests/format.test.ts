import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  decimalsFor,
  fixed,
  formatBounds,
  formatBytes,
  formatCell,
  formatCount,
  formatFraction,
  formatInterval,
  formatNumber,
  formatPercentile,
  formatValue,
  percentileLabel,
  roundSig,
  withUnit,
  type Bounded,
} from '../src/data/format';

describe('formatNumber: three significant digits', () => {
  it('prints the float noise of the old dashboard sensibly', () => {
    expect(formatNumber(1.3488720723413612)).toBe('1.35');
    expect(formatNumber(0.27335075000000003)).toBe('0.273');
  });

  it('rounds large figures and separates thousands', () => {
    expect(formatNumber(3983.4)).toBe('3,980');
    expect(formatNumber(123456789)).toBe('123,000,000');
    expect(formatNumber(99.95)).toBe('100');
  });

  it('drops trailing zeros and keeps small figures readable', () => {
    expect(formatNumber(12)).toBe('12');
    expect(formatNumber(0.8)).toBe('0.8');
    expect(formatNumber(0.000123456)).toBe('0.000123');
    expect(formatNumber(0)).toBe('0');
    expect(formatNumber(-0.0001)).toBe('-0.0001');
  });

  it('prints missing figures as a dash', () => {
    expect(formatNumber(null)).toBe('—');
    expect(formatNumber(undefined)).toBe('—');
    expect(formatNumber(Number.NaN)).toBe('—');
    expect(formatNumber(Number.POSITIVE_INFINITY)).toBe('—');
  });

  it('has the helpers it is built on', () => {
    expect(roundSig(0.27335, 3)).toBe(0.273);
    expect(roundSig(3983.4, 2)).toBe(4000);
    expect(decimalsFor(0.8)).toBe(1);
    expect(decimalsFor(0.83)).toBe(2);
    expect(decimalsFor(1234567)).toBe(0);
    expect(decimalsFor(1.234e-7)).toBe(9);
    expect(fixed(12345.678, 1)).toBe('12,345.7');
    expect(fixed(-0.0001, 2)).toBe('0.00');
  });
});

describe('counts, units, fractions, bytes', () => {
  it('prints counts exactly', () => {
    expect(formatCount(12000)).toBe('12,000');
    expect(formatCount(7)).toBe('7');
    expect(formatCount(2.5)).toBe('2.5');
    expect(formatCount(null)).toBe('—');
  });

  it('puts the unit after the value: a space, but not before × and %', () => {
    expect(formatValue(0.27335, 'ms')).toBe('0.273 ms');
    expect(formatValue(3983.4, 'req/s')).toBe('3,980 req/s');
    expect(formatValue(1.3488, '×')).toBe('1.35×');
    expect(formatValue(0.6234, 'cores')).toBe('0.623 cores');
    expect(formatValue(88.56, 'µs')).toBe('88.6 µs');
    expect(formatValue(null, 'ms')).toBe('—');
    expect(withUnit('12', '%')).toBe('12%');
  });

  it('prints fractions as percentages', () => {
    expect(formatFraction(0.992)).toBe('99.2%');
    expect(formatFraction(0.0113)).toBe('1.13%');
    expect(formatFraction(1)).toBe('100%');
    expect(formatFraction(null)).toBe('—');
  });

  it('prints bytes in B up to 100 kB, then kB, MB, GB', () => {
    expect(formatBytes(412)).toBe('412 B');
    expect(formatBytes(6081)).toBe('6,080 B');
    expect(formatBytes(146000)).toBe('146 kB');
    expect(formatBytes(25769803776)).toBe('25.8 GB');
    expect(formatBytes(null)).toBe('—');
  });

  it('names percentiles', () => {
    expect(formatPercentile(99.9)).toBe('p99.9');
    expect(formatPercentile(50)).toBe('p50');
    expect(formatPercentile(99.609375)).toBe('p99.6094');
    expect(percentileLabel(99.99)).toBe('99.99%');
  });
});

describe('formatInterval: a value with its 95 % interval', () => {
  it('prints the headline example', () => {
    expect(formatInterval({ value: 0.83, low: 0.78, high: 0.9 }, '×')).toBe('0.83× [0.78–0.9]');
  });

  it('gives the value and each bound three significant digits of their own', () => {
    expect(formatInterval({ value: 3983.4, low: 3900.2, high: 4050.7 }, 'req/s')).toBe('3,980 req/s [3,900–4,050]');
    expect(formatInterval({ value: 0.8, low: 0.78, high: 0.83 }, 'ms')).toBe('0.8 ms [0.78–0.83]');
    expect(formatInterval({ value: 12.3, low: 9.87, high: 15.1 }, 'ms')).toBe('12.3 ms [9.87–15.1]');
    expect(formatInterval({ value: 1, low: 0.95, high: 1.05 }, '×')).toBe('1× [0.95–1.05]');
    expect(formatInterval({ value: 45.6, low: 1.2, high: 301 }, 'ms')).toBe('45.6 ms [1.2–301]');
    expect(formatInterval({ value: 1.3488720723413612, low: 1.2, high: 1.51 }, '×')).toBe('1.35× [1.2–1.51]');
  });

  it('never prints a ratio that is not 1 as 1: a bound beside "the interval excludes 1" keeps the digits that say so', () => {
    expect(formatInterval({ value: 1.01, low: 1.004, high: 1.016 }, '×')).toBe('1.01× [1.004–1.02]');
    expect(formatInterval({ value: 0.99, low: 0.984, high: 0.9996 }, '×')).toBe('0.99× [0.984–0.9996]');
    expect(formatInterval({ value: 0.9996, low: 0.9991, high: 0.9999 }, '×')).toBe('0.9996× [0.999–0.9999]');
    // 1 itself stays "1" (the test above), and other units keep three digits
    expect(formatInterval({ value: 1.01, low: 1.004, high: 1.016 }, 'ms')).toBe('1.01 ms [1–1.02]');
  });

  it('keeps a figure off the marks it is read against (a goal\'s bound) as a ratio is kept off 1', () => {
    // a hot-path goal ≤ 1.1 not met: its interval's low bound of 1.1004 is not "1.10"
    expect(formatInterval({ value: 1.2, low: 1.1004, high: 1.3 }, '×', [1, 1.1])).toBe('1.2× [1.1004–1.3]');
    expect(formatInterval({ value: 1.0004, low: 0.95, high: 1.05 }, '×', [1, 1.1])).toBe('1.0004× [0.95–1.05]');
    expect(formatInterval({ value: 0.96996, low: null, high: null }, '', [0.97])).toBe('0.96996');
    // the mark itself, and figures that do not round onto it, print as before
    expect(formatInterval({ value: 0.97, low: null, high: null }, '', [0.97])).toBe('0.97');
    expect(formatInterval({ value: 0.8, low: 0.78, high: 0.83 }, 'ms', [0.9])).toBe('0.8 ms [0.78–0.83]');
  });

  it('prints only the value without bounds (fewer than 2 windows), a dash without a value', () => {
    expect(formatInterval({ value: 0.8, low: null, high: null }, 'ms')).toBe('0.8 ms');
    expect(formatInterval({ value: null, low: null, high: null }, 'ms')).toBe('—');
    expect(formatInterval(null, 'ms')).toBe('—');
  });

  it('gives just the bounds', () => {
    expect(formatBounds({ value: 0.83, low: 0.78, high: 0.9 })).toBe('[0.78–0.9]');
    expect(formatBounds({ value: 0.83, low: null, high: null })).toBe('');
  });
});

describe('formatCell: table cells', () => {
  it('prints numbers at three digits, counts exactly, fractions in %, text as is', () => {
    expect(formatCell(0.27335075000000003)).toBe('0.273');
    expect(formatCell(120386, 'int')).toBe('120,386');
    expect(formatCell(0.0125, 'fraction')).toBe('1.25%');
    expect(formatCell('REST', 'text')).toBe('REST');
    expect(formatCell(0.99971234, 'text')).toBe('0.99971234');
    expect(formatCell(null)).toBe('—');
    expect(formatCell(true)).toBe('true');
  });
});

// The end-of-run text (loadtest/tandem_bench/report.py) prints the same figures: both test suites read
// these cases, so what a run prints and what the dashboard shows cannot drift apart.
describe('figures print as the end-of-run text prints them', () => {
  const cases = JSON.parse(readFileSync(join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'loadtest', 'tests', 'fixtures', 'figures-as-text.json'), 'utf8')) as {
    numbers: [number, string, string?][];
    intervals: [Bounded, string, string?][];
    ratios: [Bounded, string, string?][];
  };
  it.each(cases.numbers)('%s → %s', (value, text) => {
    expect(formatNumber(value)).toBe(text);
  });
  it.each(cases.intervals)('%o → %s', (iv, text) => {
    expect(formatInterval(iv, '')).toBe(text);
  });
  it.each(cases.ratios)('ratio %o → %s', (iv, text) => {
    expect(formatInterval(iv, '×')).toBe(text);
  });
});
