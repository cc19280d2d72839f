import { describe, expect, it } from 'vitest';
import { csvField, toCsv } from '../src/data/csv';

describe('CSV', () => {
  it('leaves plain values alone and writes null as empty', () => {
    expect(csvField('REST')).toBe('REST');
    expect(csvField(1.25)).toBe('1.25');
    expect(csvField(-3)).toBe('-3');
    expect(csvField(null)).toBe('');
    expect(csvField(undefined)).toBe('');
    expect(csvField(false)).toBe('false');
  });

  it('quotes commas, quotes and line breaks, doubling quotes', () => {
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('two\nlines')).toBe('"two\nlines"');
    expect(csvField('cr\rhere')).toBe('"cr\rhere"');
  });

  it('keeps spreadsheet formulas from running', () => {
    expect(csvField('=SUM(A1)')).toBe("'=SUM(A1)");
    expect(csvField('+1')).toBe("'+1");
    expect(csvField('@x,y')).toBe(`"'@x,y"`);
  });

  it('writes a header and CRLF-terminated rows', () => {
    expect(toCsv(['Protocol', 'p50 (ms)'], [['REST', 1.5], ['gRPC', null]])).toBe('Protocol,p50 (ms)\r\nREST,1.5\r\ngRPC,\r\n');
  });
});
