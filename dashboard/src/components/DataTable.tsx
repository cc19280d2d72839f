import type { TableSpec } from '../data/charts/spec';
import { formatCell } from '../data/format';

/**
 * The plotted numbers, printed by the format module (three significant digits, counts exact; the
 * units are in the column headers). A greyed row is a flagged cell or window: the reason is in its
 * Flags column and its tooltip. The CSV export keeps the numbers as run.json holds them.
 */
export function DataTable({ table, caption }: { table: TableSpec; caption: string }) {
  if (table.rows.length === 0) return null;
  return (
    <div className="table-wrap">
      <table className="data">
        <caption>{caption}</caption>
        <thead>
          <tr>
            {table.columns.map((c) => (
              <th key={c} scope="col">{c}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {table.rows.map((row, i) => {
            const flag = table.rowFlags?.[i] ?? null;
            return (
              <tr key={i} className={flag ? 'flagged' : undefined} title={flag ? `greyed: ${flag}` : undefined}>
                {row.map((v, j) => {
                  const kind = table.formats?.[j] ?? (typeof v === 'number' ? 'num' : 'text');
                  return (
                    <td key={j} className={typeof v === 'number' ? 'num' : undefined}>{formatCell(v, kind)}</td>
                  );
                })}
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
