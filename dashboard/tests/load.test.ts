import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadIndex, loadRun, runFileUrl } from '../src/data/load';
import { FIXTURES, RUN_A, RUN_B, RUN_BROKEN, RUN_NEWER, RUN_OLDER, RUN_PARTIAL, readText, RUN_WATCH } from './helpers';

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
    delete files[`results/${RUN_PARTIAL}/run.json`]; // and one that is listed but gone
    const fetcher = fixtureFetch(files);
    const idx = await loadIndex(fetcher);
    expect(idx.status).toBe('ok');
    if (idx.status !== 'ok') return;
    const runs = await Promise.all(idx.entries.map((e) => loadRun(e, fetcher)));
    expect(runs.map((r) => [r.entry.runId, r.status])).toEqual([
      [RUN_B, 'ok'],
      [RUN_A, 'ok'],
      [RUN_NEWER, 'unreadable'],
      [RUN_OLDER, 'older'],
      [RUN_BROKEN, 'unreadable'],
      [RUN_PARTIAL, 'unreadable'],
      [RUN_WATCH, 'ok'],
    ]);
    const older = runs.find((r) => r.status === 'older');
    expect(older).toMatchObject({ schemaVersion: 1, reason: 'recorded by an older bench (schema 1): re-run make bench to see it' });
    const reasons = runs.flatMap((r) => (r.status === 'unreadable' ? [r.reason] : []));
    expect(reasons[0]).toMatch(/^written with schema version 3/);
    expect(reasons[1]).toMatch(/^not valid JSON/);
    expect(reasons[2]).toBe(`results/${RUN_PARTIAL}/run.json: HTTP 404`);
  });
});
