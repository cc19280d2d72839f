import { formatInterval } from '../data/format';
import type { Headline, Verdict } from '../data/types';

/** What each verdict means, in plain words (the bench's reason follows it). */
export const VERDICT_TITLES: Record<Verdict, string> = {
  finding: 'Finding',
  inconclusive: 'Inconclusive',
  flagged: 'Flagged',
  missing: 'Missing',
};

const VERDICT_DEFAULT_REASON: Record<Verdict, string> = {
  finding: 'the 95 % interval excludes 1 and no flagged cell went into it',
  inconclusive: 'the 95 % interval includes 1: no difference shown',
  flagged: 'only flagged cells were available; the value is computed from them anyway',
  missing: 'no pair of cells to compute it from in this run',
};

/**
 * Headlines whose brackets are a range, not a 95 % interval: the bench gives the JSON ÷ Protobuf
 * body ratio's lowest and highest over the operations and page sizes measured (headline.py).
 */
const RANGE_HEADLINES: ReadonlySet<string> = new Set(['jsonOverProtobufBodyBytes']);

/** "0.83×" and "[0.78–0.90]" apart, so the value can be the big number. */
function split(text: string): [string, string] {
  const i = text.indexOf(' [');
  return i < 0 ? [text, ''] : [text.slice(0, i), text.slice(i + 1)];
}

/**
 * A headline ratio with its interval and the bench's verdict. Anything but a finding is muted
 * (grey, dashed) and says why in words, so it does not read as a result.
 */
export function HeadlineCard({ name, label, hint, headline }: { name: string; label: string; hint: string; headline: Headline }) {
  const h = headline;
  const [value, bounds] = split(formatInterval({ value: h.value, low: h.low, high: h.high }, '×'));
  const muted = h.verdict !== 'finding';
  const reason = h.reason || VERDICT_DEFAULT_REASON[h.verdict];
  return (
    <div className={`headline${muted ? ' muted' : ''}`} data-headline={name} data-verdict={h.verdict}>
      <div className="big">
        {value}
        {bounds && <span className="bounds"> {bounds}</span>}
      </div>
      <div className="headline-label">{label}</div>
      <div className={`verdict verdict-${h.verdict}`}>
        <strong>{VERDICT_TITLES[h.verdict]}</strong>
        {h.verdict === 'finding'
          ? bounds ? (RANGE_HEADLINES.has(name) ? ': its range over the operations and page sizes excludes 1' : ': the 95 % interval excludes 1') : ''
          : `: ${reason}`}
      </div>
      {hint && <div className="headline-hint">{hint}</div>}
      <div className="headline-detail">{h.description}</div>
      {h.pairs.length > 0 && (
        <details className="headline-pairs">
          <summary>
            {h.pairs.length} cell pair{h.pairs.length > 1 ? 's' : ''}
            {h.pairs.some((p) => p.excluded) ? `, ${h.pairs.filter((p) => p.excluded).length} left out` : ''}
          </summary>
          <ul>
            {h.pairs.map((p, i) => (
              <li key={i} className={p.excluded ? 'excluded' : undefined}>
                <code>{p.numeratorCellId}</code> ÷ <code>{p.denominatorCellId}</code>:{' '}
                {formatInterval({ value: p.ratio, low: p.low, high: p.high }, '×')}
                {p.excluded && <> — left out{p.excludedWhy ? `: ${p.excludedWhy}` : ''}</>}
              </li>
            ))}
          </ul>
        </details>
      )}
    </div>
  );
}
