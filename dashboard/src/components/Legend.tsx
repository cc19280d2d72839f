import type { ChartSpec, SeriesSpec } from '../data/charts/spec';
import { CACHE_DASH, FLAGGED_COLOUR, protocolColour } from '../data/style';

function Swatch({ series, kind }: { series: SeriesSpec; kind: ChartSpec['kind'] }) {
  const colour = series.flag ? FLAGGED_COLOUR : protocolColour(series.protocol, series.shade);
  if (kind === 'bar') {
    return (
      <svg width="18" height="12" aria-hidden="true">
        <rect x="1" y="1" width="16" height="10" fill={colour} stroke={protocolColour(series.protocol)} />
        {series.hatched && (
          <path d="M2 9 L8 3 M7 10 L14 3 M12 10 L16 6" stroke="#fff" strokeWidth="1.6" strokeOpacity="0.85" />
        )}
      </svg>
    );
  }
  const dash = (series.dash ?? CACHE_DASH[series.cacheMode ?? 'none']).join(' ');
  return (
    <svg width="36" height="12" aria-hidden="true">
      <line x1="1" y1="6" x2="35" y2="6" stroke={colour} strokeWidth="2.5" strokeDasharray={dash} />
    </svg>
  );
}

/** The chart's series in HTML (readable, testable); a click hides or shows a series. */
export function Legend({ spec, hidden, onToggle }: { spec: ChartSpec; hidden: Set<string>; onToggle: (label: string) => void }) {
  const items = spec.series.filter((s) => !s.hideInLegend);
  return (
    <ul className="legend" aria-label={`Legend: ${spec.title}`}>
      {items.map((s) => (
        <li key={s.label}>
          <button
            type="button"
            className={`legend-item${hidden.has(s.label) ? ' off' : ''}${s.flag ? ' flagged' : ''}`}
            aria-pressed={!hidden.has(s.label)}
            title={s.flag ? `Show or hide this series (greyed: ${s.flag})` : 'Show or hide this series'}
            onClick={() => onToggle(s.label)}
          >
            <Swatch series={s} kind={spec.kind} />
            <span className="legend-label">{s.label}</span>
          </button>
        </li>
      ))}
    </ul>
  );
}
