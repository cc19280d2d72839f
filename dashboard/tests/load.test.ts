import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadIndex, loadRun, runFileUrl } from '../src/data/load';
import { FIXTURES, readText } from './helpers';

/** A fetch that serves the fixture results folder (or nothing). */
function fixtureFetch(files: Record<string, string | null>): typeof fetch {
  return (async (input: string | URL | Request) => {
    const url = String(input);
    const body = files[url];
    if (body === undefined || body === null) return new Response('not found', { status: 404 });
    return new Response(body, { status: 200 });
  }) as typeof fetch;
}

describe('runFileUrl', () => {
  it('resolves the forms a path may take', () => {
    expect(runFileUrl({ runId: 'r1', path: 'r1/run.json' })).toBe('results/r1/run.json');
    expect(runFileUrl({ runId: 'r1', path: 'results/r1/run.json' })).toBe('results/r1/run.json');
    expect(runFileUrl({ runId: 'r1', path: 'r1/' })).toBe('results/r1/run.json');
    expect(runFileUrl({ runId: 'r1', path: '' })).toBe('results/r1/run.json');
  });
});

describe('loadIndex and loadRun', () => {
  it('treats a missing index or an empty list as "no results yet"', async () => {
    expect(await loadIndex(fixtureFetch({}))).toEqual({ status: 'empty' });
    expect(await loadIndex(fixtureFetch({ 'results/index.json': '{"schemaVersion":1,"runs":[]}' }))).toEqual({ status: 'empty' });
  });

  it('reports a broken index', async () => {
    const s = await loadIndex(fixtureFetch({ 'results/index.json': '{"schemaVersion": 1, "runs": [' }));
    expect(s.status).toBe('error');
  });

  it('loads every listed run, marking the unreadable ones with a reason', async () => {
    const index = readText(join(FIXTURES, 'index.json'));
    const files: Record<string, string> = { 'results/index.json': index };
    for (const r of JSON.parse(index).runs) files[`results/${r.path}`] = readText(join(FIXTURES, r.path));
    delete files['results/20261120T080000Z-partial/run.json']; // and one that is listed but gone
    const fetcher = fixtureFetch(files);
    const idx = await loadIndex(fetcher);
    expect(idx.status).toBe('ok');
    if (idx.status !== 'ok') return;
    const runs = await Promise.all(idx.entries.map((e) => loadRun(e, fetcher)));
    expect(runs.map((r) => [r.entry.runId, r.status])).toEqual([
      ['20261125T090000Z-quick-2222222', 'ok'],
      ['20261124T100000Z-quick-1111111', 'ok'],
      ['20261123T070000Z-quick-b000000', 'unreadable'],
      ['20261122T070000Z-quick-a262159', 'ok'],
      ['20261121T070000Z-quick-broken', 'unreadable'],
      ['20261120T080000Z-partial', 'unreadable'],
    ]);
    const reasons = runs.flatMap((r) => (r.status === 'unreadable' ? [r.reason] : []));
    expect(reasons[0]).toMatch(/^written with schema version 2/);
    expect(reasons[1]).toMatch(/^not valid JSON/);
    expect(reasons[2]).toBe('results/20261120T080000Z-partial/run.json: HTTP 404');
  });
});
