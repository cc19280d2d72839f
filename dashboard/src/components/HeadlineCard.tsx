import { formatInterval } from '../data/format';
import type { GoalStatus } from '../data/decomposition';
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

/** A goal's status in words, where a headline says its verdict (the hot path's goals). */
const GOAL_TITLES: Record<GoalStatus, string> = {
  met: 'Goal met',
  'not met': 'Goal not met',
  undecided: 'Undecided',
  missing: 'Missing',
};

/**
 * A headline ratio with its interval and the bench's verdict. Anything but a finding is muted
 * (grey, dashed) and says why in words, so it does not read as a result. A goal card (`goal`)
 * reads as its goal instead: the verdict is the test against 1, which a goal's bound (≤ 1.1,
 * ≥ 0.9) is not, so a goal met with an interval holding 1 is a result and an undecided goal
 * whose interval excludes 1 is not; the test against 1 stays, as the smaller line.
 */
export function HeadlineCard({ name, label, hint, headline, goal, goalBound }: {
  name: string; label: string; hint: string; headline: Headline;
  goal?: { status: GoalStatus; reason: string };
  /** A goal card's bound: its figures never print as the bound when they are not (nor as 1). */
  goalBound?: number;
}) {
  const h = headline;
  const marks = goalBound === undefined ? [1] : [1, goalBound];
  const [value, bounds] = split(formatInterval({ value: h.value, low: h.low, high: h.high }, '×', marks));
  const muted = goal ? goal.status === 'undecided' || goal.status === 'missing' : h.verdict !== 'finding';
  const reason = h.reason || VERDICT_DEFAULT_REASON[h.verdict];
  const against1 = h.verdict === 'finding'
    ? bounds ? (RANGE_HEADLINES.has(name) ? ': its range over the operations and page sizes excludes 1' : ': the 95 % interval excludes 1') : ''
    : `: ${reason}`;
  return (
    <div className={`headline${muted ? ' muted' : ''}`} data-headline={name} data-verdict={h.verdict}>
      <div className="big">
        {value}
        {bounds && <span className="bounds"> {bounds}</span>}
      </div>
      <div className="headline-label">{label}</div>
      {goal ? (
        <>
          <div className={`verdict goal-${goal.status.replace(' ', '-')}`}>
            <strong>{GOAL_TITLES[goal.status]}</strong>: {goal.reason}
          </div>
          <div className="headline-hint against-1">Against 1: {VERDICT_TITLES[h.verdict].toLowerCase()}{against1}</div>
        </>
      ) : (
        <div className={`verdict verdict-${h.verdict}`}>
          <strong>{VERDICT_TITLES[h.verdict]}</strong>
          {against1}
        </div>
      )}
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
