import type { Resolved } from '../data/transforms';
import type { LoadedRun, Run } from '../data/types';
import type { Filters } from '../data/urlState';

export interface ViewProps {
  run: Run;
  /** The filters as in the URL (resolved holds the choices made from the data). */
  filters: Filters;
  resolved: Resolved;
  onFilters: (patch: Partial<Filters>) => void;
  /** The cell chosen for the Over time view (from the URL), and how to choose another. */
  cellId: string | null;
  onCell: (cellId: string) => void;
  /** A link to a cell's windows (the Over time view). */
  cellHref: (cellId: string) => string;
}

export interface CompareProps extends ViewProps {
  runs: LoadedRun[];
  /** The run compared with `run` (the URL's runB, else another readable run); either may be A (before). */
  runB: Run | null;
  onRunB: (runId: string) => void;
}
