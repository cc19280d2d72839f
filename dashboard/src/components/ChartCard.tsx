import { useMemo, useState } from 'react';
import { Chart as ChartJS } from 'chart.js';
import { Chart } from 'react-chartjs-2';
import { chartType, toChartData, toChartOptions } from '../chartConfig';
import type { ChartSpec } from '../data/charts/spec';
import { toCsv } from '../data/csv';
import { downloadText, downloadUrl, slug } from '../download';
import { DataTable } from './DataTable';
import { Legend } from './Legend';

/**
 * Draws the chart again on an off-screen canvas, this time with its title, subtitle and legend,
 * and downloads it as a PNG. The chart on the page is left alone.
 */
function exportPng(spec: ChartSpec, hidden: Set<string>): void {
  const canvas = document.createElement('canvas');
  canvas.width = 1200;
  canvas.height = 760;
  const options = toChartOptions(spec);
  const inLegend = new Set(spec.series.filter((s) => !s.hideInLegend).map((s) => s.label));
  Object.assign(options, { responsive: false, devicePixelRatio: 1 });
  options.plugins = {
    ...options.plugins,
    title: { display: true, text: spec.title, font: { size: 18, weight: 'bold' } },
    subtitle: { display: Boolean(spec.subtitle), text: spec.subtitle ?? '', padding: { bottom: 8 } },
    legend: { display: true, position: 'bottom', labels: { boxWidth: 36, filter: (item) => inLegend.has(item.text) } },
  };
  const chart = new ChartJS(canvas, { type: chartType(spec), data: toChartData(spec, hidden), options });
  canvas.toBlob((blob) => {
    chart.destroy();
    if (!blob) return;
    const url = URL.createObjectURL(blob);
    downloadUrl(url, `${slug(spec.title)}.png`);
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  }, 'image/png');
}

export function ChartCard({ spec }: { spec: ChartSpec }) {
  const [hidden, setHidden] = useState<Set<string>>(new Set());
  const data = useMemo(() => toChartData(spec, hidden), [spec, hidden]);
  const options = useMemo(() => toChartOptions(spec), [spec]);
  const empty = spec.series.length === 0;

  const toggle = (label: string) => {
    const next = new Set(hidden);
    // A fitted line and its measured points hide and show together.
    const partners = spec.series.filter((s) => s.label === label || s.partnerOf === label);
    const hide = !hidden.has(label);
    for (const s of partners) (hide ? next.add(s.label) : next.delete(s.label));
    setHidden(next);
  };

  return (
    <section className="card chart-card" data-chart={spec.key} data-empty={empty ? 'true' : 'false'}
      data-error-bars={spec.errorBars ? 'true' : 'false'}>
      <header className="card-head">
        <div>
          <h3>{spec.title}</h3>
          {spec.subtitle && <p className="subtitle">{spec.subtitle}</p>}
        </div>
        <div className="card-actions">
          <button type="button" disabled={empty} onClick={() => exportPng(spec, hidden)}>
            PNG
          </button>
          <button
            type="button"
            disabled={empty}
            onClick={() => downloadText(toCsv(spec.table.columns, spec.table.rows), `${slug(spec.title)}.csv`, 'text/csv')}
          >
            CSV
          </button>
        </div>
      </header>
      {empty ? (
        <p className="no-data">{spec.emptyText ?? 'No cells in this run match the filters for this chart.'}</p>
      ) : (
        <>
          <Legend spec={spec} hidden={hidden} onToggle={toggle} />
          <div className="chart-box">
            <Chart type={chartType(spec)} data={data} options={options} aria-label={spec.title} role="img" />
          </div>
          {spec.notes && spec.notes.length > 0 && (
            <ul className="chart-notes" data-testid="chart-notes">
              {spec.notes.map((n, i) => (
                <li key={i} className={n.startsWith('Greyed:') ? 'flag-note' : undefined}>{n}</li>
              ))}
            </ul>
          )}
          <details className="table-details" open>
            <summary>Plotted numbers ({spec.table.rows.length} rows)</summary>
            <DataTable table={spec.table} caption={spec.title} />
          </details>
        </>
      )}
    </section>
  );
}
