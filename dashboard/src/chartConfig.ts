// Turns a ChartSpec into Chart.js data and options, with the shared colours and line styles.
//
// Error bars (the 95 % intervals of run.json) are drawn by chartjs-chart-error-bars (sgratzl,
// 4.4.x, the line made for Chart.js 4): its bar and line controllers take {y, yMin, yMax} points,
// draw the whiskers, and widen the value axis so that no interval is cut off — which a hand-drawn
// whisker plugin would have to redo. Points without an interval get no whisker.
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
  type ChartType,
  type Plugin,
  type Scale,
  type ScriptableContext,
  type ScriptableLineSegmentContext,
  type TooltipItem,
} from 'chart.js';
import {
  BarWithErrorBar,
  BarWithErrorBarsController,
  LineWithErrorBarsController,
  PointWithErrorBar,
} from 'chartjs-chart-error-bars';
import { PERCENTILE_TICKS } from './data/charts/latency';
import type { ChartSpec, Datum, Marker, SeriesSpec } from './data/charts/spec';
import { formatInterval, formatNumber } from './data/format';
import { CACHE_DASH, CACHE_POINT, ERROR_BAR_COLOUR, FLAGGED_COLOUR, FLAGGED_ERROR_BAR_COLOUR, protocolColour } from './data/style';

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

/** Vertical dashed lines at options.plugins.markers.markers[].x (a sweep's knee), labelled at the top. */
const markerLines: Plugin = {
  id: 'markers',
  afterDatasetsDraw(chart, _args, opts: { markers?: Marker[] }) {
    const scale = chart.scales.x;
    if (!opts?.markers?.length || !scale) return;
    const { top, bottom, left, right } = chart.chartArea;
    const { ctx } = chart;
    ctx.save();
    opts.markers.forEach((m, i) => {
      const px = scale.getPixelForValue(m.x);
      if (!Number.isFinite(px) || px < left || px > right) return;
      const colour = protocolColour(m.protocol, m.shade);
      ctx.strokeStyle = colour;
      ctx.setLineDash([3, 3]);
      ctx.lineWidth = 1.5;
      ctx.beginPath();
      ctx.moveTo(px, top);
      ctx.lineTo(px, bottom);
      ctx.stroke();
      ctx.font = '11px system-ui, sans-serif';
      const w = ctx.measureText(m.label).width;
      const x = Math.min(px + 4, right - w - 4);
      const y = top + 14 + i * 15;
      ctx.fillStyle = 'rgba(255,255,255,0.9)';
      ctx.fillRect(x - 2, y - 11, w + 4, 14);
      ctx.fillStyle = colour;
      ctx.textAlign = 'left';
      ctx.fillText(m.label, x, y);
    });
    ctx.restore();
  },
};

let registered = false;
export function registerChartJs(): void {
  if (registered) return;
  Chart.register(
    BarController, BarElement, LineController, LineElement, PointElement, ScatterController,
    BarWithErrorBarsController, BarWithErrorBar, LineWithErrorBarsController, PointWithErrorBar,
    CategoryScale, LinearScale, LogarithmicScale, Title, SubTitle, Tooltip, Legend,
    whiteBackground, referenceLine, markerLines,
  );
  Chart.defaults.font.family = 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
  Chart.defaults.color = '#333';
  registered = true;
}

/** The Chart.js chart type of a spec: the error-bar variants when it plots intervals. */
export function chartType(spec: ChartSpec): ChartType {
  if (spec.kind === 'bar') return spec.errorBars ? 'barWithErrorBars' : 'bar';
  return spec.errorBars ? 'lineWithErrorBars' : 'line';
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

const hasInterval = (d: Datum) => typeof d.low === 'number' && typeof d.high === 'number';

/** The greyed reason of point i of a series (its own, or the whole series'). */
function flagAt(s: SeriesSpec, i: number): string | null {
  return s.flag ?? s.data[i]?.flag ?? null;
}

/** A point as Chart.js takes it: {y, yMin, yMax} (bars) or {x, y, yMin, yMax} (lines). */
function chartPoint(d: Datum | null, spec: ChartSpec) {
  const withBars = spec.errorBars && d !== null && hasInterval(d) ? { yMin: d.low, yMax: d.high } : {};
  if (spec.kind === 'bar') {
    if (d === null) return spec.errorBars ? { y: null } : null;
    return spec.errorBars ? { y: d.y, ...withBars } : d.y;
  }
  // line series hold no nulls (the builders leave gaps out); kept safe all the same
  return d === null ? { x: null, y: null } : { x: d.x, y: d.y, ...withBars };
}

function errorBarOptions(s: SeriesSpec, spec: ChartSpec) {
  if (!spec.errorBars) return {};
  const colour = (ctx: ScriptableContext<'bar'>) => (flagAt(s, ctx.dataIndex) ? FLAGGED_ERROR_BAR_COLOUR : ERROR_BAR_COLOUR);
  return {
    errorBarColor: colour,
    errorBarWhiskerColor: colour,
    errorBarLineWidth: 1.5,
    errorBarWhiskerLineWidth: 1.5,
    ...(spec.kind === 'bar' ? { errorBarWhiskerRatio: 0.4 } : { errorBarWhiskerRatio: 0, errorBarWhiskerSize: 10 }),
  };
}

function dataset(s: SeriesSpec, spec: ChartSpec, hidden: boolean) {
  const colour = protocolColour(s.protocol, s.shade);
  const data = s.data.map((d) => chartPoint(d, spec));
  const greyed = s.data.map((_, i) => Boolean(flagAt(s, i)));
  if (spec.kind === 'bar') {
    const fill = s.hatched ? hatch(colour) : colour;
    const grey = s.hatched ? hatch(FLAGGED_COLOUR) : FLAGGED_COLOUR;
    return {
      label: s.label,
      data,
      backgroundColor: greyed.map((g) => (g ? grey : fill)),
      borderColor: greyed.map((g) => (g ? FLAGGED_ERROR_BAR_COLOUR : protocolColour(s.protocol))),
      borderWidth: 1,
      skipNull: spec.skipNull ?? false,
      ...(spec.barBase === undefined ? {} : { base: spec.barBase }),
      ...(s.stack === undefined ? {} : { stack: s.stack }),
      hidden,
      ...errorBarOptions(s, spec),
    };
  }
  const mode = s.cacheMode ?? 'none';
  const pointColours = greyed.map((g) => (g ? FLAGGED_COLOUR : colour));
  const dense = s.data.length > 15;
  return {
    label: s.label,
    data,
    borderColor: s.flag ? FLAGGED_COLOUR : colour,
    backgroundColor: s.flag ? FLAGGED_COLOUR : colour,
    pointBackgroundColor: pointColours,
    pointBorderColor: pointColours,
    borderDash: s.dash ?? CACHE_DASH[mode],
    borderWidth: 2,
    pointStyle: CACHE_POINT[mode],
    pointRadius: s.pointsOnly ? 5 : dense ? 2 : 4,
    pointHoverRadius: 7,
    showLine: !s.pointsOnly,
    spanGaps: false,
    // a stretch of line that touches a greyed point is greyed too
    segment: {
      borderColor: (ctx: ScriptableLineSegmentContext) =>
        flagAt(s, ctx.p0DataIndex) || flagAt(s, ctx.p1DataIndex) ? FLAGGED_COLOUR : undefined,
    },
    // Fitted lines carry no markers; the measured points beside them do.
    ...(s.fitted ? { pointRadius: 0, pointHitRadius: 6 } : {}),
    hidden,
    ...errorBarOptions(s, spec),
  };
}

export function toChartData(spec: ChartSpec, hidden: Set<string>): ChartData {
  return {
    labels: spec.categories,
    datasets: spec.series.map((s) => dataset(s, spec, hidden.has(s.label))),
  } as ChartData;
}

/**
 * Log-axis labels: at 1, 2 and 5 × 10^k when at least three of those fall on the axis, otherwise
 * at every tick Chart.js made (a narrow range), printed by the format module.
 */
function logTick(value: number | string, index: number, ticks: { value: number }[]): string {
  const nice = (v: number) => {
    if (!(v > 0)) return false;
    const r = v / 10 ** Math.floor(Math.log10(v) + 1e-9);
    return [1, 2, 5].some((n) => Math.abs(r - n) < 1e-6);
  };
  const niceCount = ticks.filter((t) => nice(t.value)).length;
  const v = Number(value);
  if (niceCount >= 3) return nice(v) ? formatNumber(v) : '';
  // few nice ticks: label about six of them, evenly
  const step = Math.max(1, Math.round(ticks.length / 6));
  return index % step === 0 || index === ticks.length - 1 ? formatNumber(v) : '';
}

/** Text broken into lines of at most about `width` characters, at spaces (tooltips stay on the canvas). */
export function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && line.length + word.length + 1 > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines;
}

const linearTick = (value: number | string) => formatNumber(Number(value));

function xScale(spec: ChartSpec) {
  const title = { display: true, text: spec.xTitle };
  if (spec.kind === 'bar') return { type: 'category' as const, title, stacked: spec.stacked ?? false };
  if (spec.xAxis === 'percentile') {
    return {
      type: 'logarithmic' as const,
      title,
      min: 1,
      afterBuildTicks: (scale: Scale) => {
        scale.ticks = PERCENTILE_TICKS.filter((t) => t.value >= scale.min && t.value <= scale.max * 1.0001).map((t) => ({ value: t.value }));
      },
      ticks: {
        autoSkip: false,
        maxRotation: 0,
        callback: (value: number | string) => PERCENTILE_TICKS.find((t) => t.value === Number(value))?.label ?? '',
      },
    };
  }
  if (spec.xAxis === 'log') {
    return { type: 'logarithmic' as const, title: { ...title, text: `${spec.xTitle} — log scale` }, ticks: { callback: logTick } };
  }
  return { type: 'linear' as const, title, beginAtZero: true, ticks: { callback: linearTick } };
}

export function toChartOptions(spec: ChartSpec): ChartOptions {
  const datumOf = (item: TooltipItem<ChartType>) => spec.series[item.datasetIndex]?.data[item.dataIndex] ?? null;
  return {
    responsive: true,
    maintainAspectRatio: false,
    animation: false,
    parsing: spec.kind === 'bar' ? undefined : { xAxisKey: 'x', yAxisKey: 'y' },
    interaction: spec.kind === 'bar' ? { mode: 'index', intersect: false } : { mode: 'nearest', intersect: false },
    datasets: { bar: { skipNull: true }, barWithErrorBars: { skipNull: true } },
    scales: {
      x: xScale(spec),
      y: spec.yLog
        ? { type: 'logarithmic', title: { display: true, text: spec.yTitle }, ticks: { callback: logTick } }
        : { type: 'linear', beginAtZero: true, stacked: spec.stacked ?? false, title: { display: true, text: spec.yTitle }, ticks: { callback: linearTick } },
    },
    plugins: {
      // The title and the legend are HTML around the canvas; they are drawn into the PNG export only.
      title: { display: false, text: spec.title },
      legend: { display: false },
      referenceLine: spec.referenceY === undefined ? {} : { y: spec.referenceY, label: `${spec.referenceY}× = no change` },
      markers: { markers: spec.markers ?? [] },
      tooltip: {
        // a fitted line is the bench's A + B·N, not a measurement: no tooltip of its own
        filter: (item: TooltipItem<ChartType>) => !spec.series[item.datasetIndex]?.fitted,
        callbacks: {
          // bars: the category; x-y charts name x in each line ("at p99.9", "at 10 users")
          title: (items: TooltipItem<ChartType>[]) => (spec.kind === 'bar' ? (items[0]?.label ?? '') : ''),
          label: (item: TooltipItem<ChartType>) => {
            const s = spec.series[item.datasetIndex];
            const d = datumOf(item);
            if (!s || !d) return `${item.dataset.label}: —`;
            const value = formatInterval({ value: d.y, low: d.low ?? null, high: d.high ?? null }, spec.unit);
            if (spec.kind === 'bar') return `${s.label}: ${value}`;
            const x = spec.xPoint ? `${spec.xPoint.before}${formatNumber(d.x)}${spec.xPoint.after}` : `x = ${formatNumber(d.x)}`;
            return `${s.label}: ${value} at ${d.xLabel ?? x}`;
          },
          afterLabel: (item: TooltipItem<ChartType>) => {
            const s = spec.series[item.datasetIndex];
            const flag = s ? flagAt(s, item.dataIndex) : null;
            return flag ? wrap(`greyed: ${flag}`, 70) : '';
          },
        },
      },
    },
  } as ChartOptions;
}
