// Fetching results/index.json and the run files it lists.
import type { IndexEntry, LoadedRun } from './types';
import { parseRun, validateIndex } from './validate';

export const RESULTS_BASE = 'results';

export type IndexState =
  | { status: 'loading' }
  | { status: 'empty' }
  | { status: 'error'; reason: string }
  | { status: 'ok'; entries: IndexEntry[] };

/**
 * Where a run file lives, relative to the page. The index's `path` may name the run folder or the
 * file, relative to results/ or with a leading "results/".
 */
export function runFileUrl(entry: IndexEntry): string {
  let p = (entry.path || entry.runId).replace(/^\.?\/+/, '').replace(/^results\//, '');
  if (!p.endsWith('.json')) p = `${p.replace(/\/+$/, '')}/run.json`;
  return `${RESULTS_BASE}/${p}`;
}

export async function loadIndex(fetcher: typeof fetch = fetch): Promise<IndexState> {
  let res: Response;
  try {
    res = await fetcher(`${RESULTS_BASE}/index.json`, { cache: 'no-store' });
  } catch (e) {
    return { status: 'error', reason: `could not fetch results/index.json: ${(e as Error).message}` };
  }
  if (res.status === 404) return { status: 'empty' };
  if (!res.ok) return { status: 'error', reason: `results/index.json: HTTP ${res.status}` };
  let data: unknown;
  try {
    data = JSON.parse(await res.text());
  } catch (e) {
    return { status: 'error', reason: `results/index.json is not valid JSON (${(e as Error).message})` };
  }
  const checked = validateIndex(data);
  if (!checked.ok) return { status: 'error', reason: `results/index.json: ${checked.reason}` };
  if (checked.value.runs.length === 0) return { status: 'empty' };
  return { status: 'ok', entries: checked.value.runs };
}

export async function loadRun(entry: IndexEntry, fetcher: typeof fetch = fetch): Promise<LoadedRun> {
  const url = runFileUrl(entry);
  try {
    const res = await fetcher(url, { cache: 'no-store' });
    if (!res.ok) return { entry, status: 'unreadable', reason: `${url}: HTTP ${res.status}` };
    const parsed = parseRun(await res.text());
    if (!parsed.ok && parsed.older) {
      return { entry, status: 'older', schemaVersion: parsed.older.schemaVersion, reason: parsed.reason };
    }
    if (!parsed.ok) return { entry, status: 'unreadable', reason: parsed.reason };
    return { entry, status: 'ok', run: parsed.value };
  } catch (e) {
    return { entry, status: 'unreadable', reason: `${url}: ${(e as Error).message}` };
  }
}
