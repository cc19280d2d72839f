// Turns a ChartSpec into Chart.js data and options, with the shared colours and line styles.
import {
  BarController,
  BarElement,
  CategoryScale,
  Chart,
  Legend,
  LinearScale,
  LineController,
  LineElement,
  LogarithmicScale,
  PointElement,
  ScatterController,
  SubTitle,
  Title,
  Tooltip,
  type ChartData,
  type ChartOptions,
  type Plugin,
  type TooltipItem,
} from 'chart.js';
import type { ChartSpec, SeriesSpec } from './data/charts';
import { CACHE_DASH, CACHE_POINT, protocolColour } from './data/style';

/** Paints the canvas white first, so an exported PNG is not transparent. */
const whiteBackground: Plugin = {
  id: 'whiteBackground',
  beforeDraw(chart) {
    const { ctx, width, height } = chart;
    ctx.save();
    ctx.globalCompositeOperation = 'destination-over';
    ctx.fillStyle = '#ffffff';
    ctx.fillRect(0, 0, width, height);
    ctx.restore();
  },
};

/** A dashed horizontal line at options.plugins.referenceLine.y, labelled. */
const referenceLine: Plugin = {
  id: 'referenceLine',
  afterDatasetsDraw(chart, _args, opts: { y?: number; label?: string }) {
    const y = opts?.y;
    const scale = chart.scales.y;
    if (y === undefined || !scale) return;
    const py = scale.getPixelForValue(y);
    const { left, right } = chart.chartArea;
    const { ctx } = chart;
    ctx.save();
    ctx.strokeStyle = '#444';
    ctx.setLineDash([5, 4]);
    ctx.lineWidth = 1;
    ctx.beginPath();
    ctx.moveTo(left, py);
    ctx.lineTo(right, py);
    ctx.stroke();
    if (opts.label) {
      ctx.font = '11px system-ui, sans-serif';
      const w = ctx.measureText(opts.label).width;
      ctx.fillStyle = 'rgba(255,255,255,0.9)';
      ctx.fillRect(right - w - 8, py - 16, w + 6, 14);
      ctx.fillStyle = '#333';
      ctx.textAlign = 'right';
      ctx.fillText(opts.label, right - 5, py - 5);
    }
    ctx.restore();
  },
};

let registered = false;
export function registerChartJs(): void {
  if (registered) return;
  Chart.register(
    BarController, BarElement, LineController, LineElement, PointElement, ScatterController,
    CategoryScale, LinearScale, LogarithmicScale, Title, SubTitle, Tooltip, Legend, whiteBackground, referenceLine,
  );
  Chart.defaults.font.family = 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
  Chart.defaults.color = '#333';
  registered = true;
}

/** Exact numbers in tooltips: the value as stored, with its unit. */
export function formatExact(v: number | null | undefined, unit: string): string {
  if (v === null || v === undefined || Number.isNaN(v)) return '—';
  return unit === '×' ? `${v}×` : `${v} ${unit}`;
}

/** The colour with white diagonal stripes, as a canvas pattern (falls back to the colour). */
function hatch(colour: string): CanvasPattern | string {
  const tile = document.createElement('canvas');
  tile.width = 8;
  tile.height = 8;
  const ctx = tile.getContext('2d');
  if (!ctx) return colour;
  ctx.fillStyle = colour;
  ctx.fillRect(0, 0, 8, 8);
  ctx.strokeStyle = 'rgba(255,255,255,0.85)';
  ctx.lineWidth = 2;
  ctx.beginPath();
  ctx.moveTo(-2, 2);
  ctx.lineTo(2, -2);
  ctx.moveTo(0, 8);
  ctx.lineTo(8, 0);
  ctx.moveTo(6, 10);
  ctx.lineTo(10, 6);
  ctx.stroke();
  return ctx.createPattern(tile, 'repeat') ?? colour;
}

function dataset(s: SeriesSpec, spec: ChartSpec, hidden: boolean) {
  const colour = protocolColour(s.protocol, s.shade);
  if (spec.kind === 'bar') {
    return {
      label: s.label,
      data: s.data,
      backgroundColor: s.hatched ? hatch(colour) : colour,
      borderColor: protocolColour(s.protocol),
      borderWidth: 1,
      hidden,
    };
  }
  const mode = s.cacheMode ?? 'none';
  return {
    label: s.label,
    data: s.data,
    borderColor: colour,
    backgroundColor: colour,
    borderDash: CACHE_DASH[mode],
    borderWidth: 2,
    pointStyle: CACHE_POINT[mode],
    pointRadius: s.pointsOnly ? 5 : 4,
    pointHoverRadius: 7,
    showLine: !s.pointsOnly,
    // Fitted lines carry no markers; the measured points beside them do.
    ...(s.fitted ? { pointRadius: 0, pointHitRadius: 6 } : {}),
    hidden,
  };
}

export function toChartData(spec: ChartSpec, hidden: Set<string>): ChartData {
  return {
    labels: spec.categories,
    datasets: spec.series.map((s) => dataset(s, spec, hidden.has(s.label))),
  } as ChartData;
}

export function toChartOptions(spec: ChartSpec): ChartOptions {
  const xScale =
    spec.kind === 'bar'
      ? { type: 'category' as const, title: { display: true, text: spec.xTitle } }
      : {
          type: spec.xLog ? ('logarithmic' as const) : ('linear' as const),
          title: { display: true, text: spec.xTitle + (spec.xLog ? ' — log scale' : '') },
          ...(spec.xLog ? {} : { beginAtZero: true }),
        };
  return {
    responsive: true,
    maintainAspectRatio: false,
    animation: false,
    parsing: spec.kind === 'bar' ? undefined : { xAxisKey: 'x', yAxisKey: 'y' },
    interaction: spec.kind === 'bar' ? { mode: 'index', intersect: false } : { mode: 'nearest', intersect: false },
    datasets: { bar: { skipNull: true } },
    scales: {
      x: xScale,
      y: { type: 'linear', beginAtZero: true, title: { display: true, text: spec.yTitle } },
    },
    plugins: {
      // The title and the legend are HTML around the canvas; they are drawn into the PNG export only.
      title: { display: false, text: spec.title },
      legend: { display: false },
      referenceLine: spec.referenceY === undefined ? {} : { y: spec.referenceY, label: `${spec.referenceY}× = no change` },
      tooltip: {
        callbacks: {
          label: (item: TooltipItem<'bar' | 'line'>) => {
            const raw = item.raw as number | { x: number; y: number } | null;
            if (raw !== null && typeof raw === 'object') {
              const at = spec.xPoint ? `${spec.xPoint.before}${raw.x}${spec.xPoint.after}` : `x = ${raw.x}`;
              return `${item.dataset.label}: ${formatExact(raw.y, spec.unit)} at ${at}`;
            }
            return `${item.dataset.label}: ${formatExact(raw, spec.unit)}`;
          },
        },
      },
    },
  } as ChartOptions;
}
