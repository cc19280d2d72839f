// The view and filters live in the URL hash (#/view?key=value), so a link reproduces a page.
import { MODELS, OPERATIONS, TOOLS, type LoadModel, type Operation, type Tool } from './types';

export const VIEWS = ['overview', 'decomposition', 'concurrency', 'latency', 'overload', 'watch', 'timeline', 'cells', 'payload', 'cache', 'compare'] as const;
export type View = (typeof VIEWS)[number];

export const VIEW_TITLES: Record<View, string> = {
  overview: 'Overview',
  decomposition: 'Where the difference comes from',
  concurrency: 'Concurrency',
  latency: 'Latency',
  overload: 'Under overload',
  watch: 'Watches',
  timeline: 'Over time',
  cells: 'Cells & CPU',
  payload: 'Payload scaling',
  cache: 'Cache',
  compare: 'Compare runs',
};

/** Filters as the user chose them; null means "let the data choose" (see resolveFilters). */
export interface Filters {
  operation: Operation | null;
  pageSize: number | null;
  concurrency: number | null;
  tool: Tool | 'all';
  model: LoadModel;
  /** The open model's target rate (arrivals per second): its cells at one concurrency can hold several. */
  rate: number | null;
  /** Which cache temperature the Concurrency and Payload views plot (no-cache is always shown). */
  temperature: 'warm' | 'cold';
  /** Cells over TLS or over plain TCP (the bench's tls dimension); never both in one chart. */
  tls: boolean;
}

export interface UrlState {
  view: View;
  run: string | null;
  runB: string | null;
  /** The cell the Over time view shows (null: the first cell the filters select). */
  cell: string | null;
  filters: Filters;
}

export const DEFAULT_FILTERS: Filters = {
  operation: null,
  pageSize: null,
  concurrency: null,
  tool: 'k6',
  model: 'closed',
  rate: null,
  temperature: 'warm',
  tls: false,
};

export const DEFAULT_STATE: UrlState = { view: 'overview', run: null, runB: null, cell: null, filters: DEFAULT_FILTERS };

function pick<T extends string>(v: string | null, allowed: readonly T[]): T | null {
  return v !== null && (allowed as readonly string[]).includes(v) ? (v as T) : null;
}

function positiveNumber(v: string | null): number | null {
  if (v === null || !/^\d+(\.\d+)?$/.test(v)) return null;
  const n = Number(v);
  return n > 0 ? n : null;
}

function positiveInt(v: string | null): number | null {
  if (v === null || !/^\d+$/.test(v)) return null;
  const n = Number(v);
  return n > 0 ? n : null;
}

export function parseHash(hash: string): UrlState {
  const body = hash.replace(/^#\/?/, '');
  const q = body.indexOf('?');
  const path = q < 0 ? body : body.slice(0, q);
  const params = new URLSearchParams(q < 0 ? '' : body.slice(q + 1));
  return {
    view: pick(path, VIEWS) ?? DEFAULT_STATE.view,
    run: params.get('run') || null,
    runB: params.get('runB') || null,
    cell: params.get('cell') || null,
    filters: {
      operation: pick(params.get('op'), OPERATIONS),
      pageSize: positiveInt(params.get('n')),
      concurrency: positiveInt(params.get('c')),
      tool: pick(params.get('tool'), [...TOOLS, 'all'] as const) ?? DEFAULT_FILTERS.tool,
      model: pick(params.get('model'), MODELS) ?? DEFAULT_FILTERS.model,
      rate: positiveNumber(params.get('rate')),
      temperature: pick(params.get('temp'), ['warm', 'cold'] as const) ?? DEFAULT_FILTERS.temperature,
      tls: params.get('tls') === '1',
    },
  };
}

export function formatHash(state: UrlState): string {
  const params = new URLSearchParams();
  if (state.run) params.set('run', state.run);
  if (state.runB) params.set('runB', state.runB);
  if (state.cell) params.set('cell', state.cell);
  const f = state.filters;
  if (f.operation) params.set('op', f.operation);
  if (f.pageSize !== null) params.set('n', String(f.pageSize));
  if (f.concurrency !== null) params.set('c', String(f.concurrency));
  if (f.tool !== DEFAULT_FILTERS.tool) params.set('tool', f.tool);
  if (f.model !== DEFAULT_FILTERS.model) params.set('model', f.model);
  if (f.rate !== null) params.set('rate', String(f.rate));
  if (f.temperature !== DEFAULT_FILTERS.temperature) params.set('temp', f.temperature);
  if (f.tls) params.set('tls', '1');
  const qs = params.toString();
  return `#/${state.view}${qs ? `?${qs}` : ''}`;
}
