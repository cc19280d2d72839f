import { describe, expect, it } from 'vitest';
import { DEFAULT_FILTERS, DEFAULT_STATE, formatHash, parseHash, type UrlState } from '../src/data/urlState';

describe('URL state', () => {
  it('round-trips a full state', () => {
    const state: UrlState = {
      view: 'compare',
      run: '20261124T100000Z-quick-1111111',
      runB: '20261125T090000Z-quick-2222222',
      cell: 'rest-k6-GetGroup-hybrid-warm-c50',
      filters: { operation: 'ListGroups', pageSize: 50, concurrency: 10, tool: 'all', model: 'open', rate: 4000, temperature: 'cold', tls: true },
    };
    const hash = formatHash(state);
    expect(hash).toBe('#/compare?run=20261124T100000Z-quick-1111111&runB=20261125T090000Z-quick-2222222&cell=rest-k6-GetGroup-hybrid-warm-c50&op=ListGroups&n=50&c=10&tool=all&model=open&rate=4000&temp=cold&tls=1');
    expect(parseHash(hash)).toEqual(state);
  });

  it('writes defaults as a bare view', () => {
    expect(formatHash({ ...DEFAULT_STATE, view: 'cache' })).toBe('#/cache');
    expect(parseHash('#/cache')).toEqual({ ...DEFAULT_STATE, view: 'cache' });
  });

  it('falls back to defaults on an empty or junk hash', () => {
    expect(parseHash('')).toEqual(DEFAULT_STATE);
    expect(parseHash('#/nonsense?op=Drop&n=-4&c=abc&tool=curl&model=x&rate=fast&temp=hot')).toEqual(DEFAULT_STATE);
    expect(parseHash('#/payload?n=0').filters).toEqual(DEFAULT_FILTERS);
  });

  it('knows the new views', () => {
    for (const view of ['latency', 'timeline', 'cells', 'decomposition'] as const) expect(parseHash(`#/${view}`).view).toBe(view);
  });

  it('escapes run ids', () => {
    const state: UrlState = { ...DEFAULT_STATE, run: 'a&b=c #d' };
    expect(parseHash(formatHash(state)).run).toBe('a&b=c #d');
  });
});
