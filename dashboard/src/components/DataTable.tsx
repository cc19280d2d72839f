import type { TableSpec } from '../data/charts';

function cellText(v: unknown): string {
  if (v === null || v === undefined) return '—';
  return String(v);
}

/** The plotted numbers, exactly as plotted. */
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
          {table.rows.map((row, i) => (
            <tr key={i}>
              {row.map((v, j) => (
                <td key={j} className={typeof v === 'number' ? 'num' : undefined}>{cellText(v)}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
