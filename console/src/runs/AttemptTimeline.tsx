import type { RunView } from '../api/types.js';
import { StatusBadge } from '../components/common.js';
import { formatDuration, formatTime } from './format.js';
import { attemptTimeline, PHASE_LABEL } from './timeline.js';
import { useNow } from './use-now.js';

/**
 * The run's attempts as phases on one time axis: each bar's width is its share of the run's
 * whole span, so a long approval wait or retry backoff reads as long. A phase still going grows
 * with the clock.
 */
export function AttemptTimeline({ run }: { run: RunView }) {
  const live = run.status !== 'success' && run.status !== 'failed' && run.status !== 'cancelled';
  const now = useNow(live ? 1000 : null);
  const t = attemptTimeline(run, now);
  const span = Math.max(1, t.endMs - t.startMs);
  if (t.phases.length === 0) return <p className="empty">No attempt has been recorded yet.</p>;
  return (
    <div className="timeline">
      <ol className="timeline-bar" aria-label="Phases drawn to scale">
        {t.phases.map((p, i) => {
          const left = ((p.startMs - t.startMs) / span) * 100;
          const width = ((p.endMs - p.startMs) / span) * 100;
          const label = `${PHASE_LABEL[p.kind]}, attempt ${p.attempt}: ${formatDuration(p.endMs - p.startMs)}${p.open ? ' so far' : ''}`;
          return (
            <li
              key={`${p.kind}-${p.attempt}-${i}`}
              className={`phase phase-${p.kind}${p.open ? ' phase-open' : ''}`}
              style={{ left: `${left}%`, width: `max(${width}%, 3px)` }}
              title={label}
              aria-label={label}
            />
          );
        })}
      </ol>
      <ol className="timeline-legend" aria-label="Timeline">
        {t.phases.map((p, i) => (
          <li key={`${p.kind}-${p.attempt}-${i}`}>
            <span className={`swatch phase-${p.kind}`} aria-hidden="true" />
            <span className="phase-name">{PHASE_LABEL[p.kind]}</span> <span className="muted">attempt {p.attempt}</span>{' '}
            <strong>{formatDuration(p.endMs - p.startMs)}</strong>
            {p.open ? <span className="muted"> so far</span> : null}
            <span className="muted"> · from {formatTime(new Date(p.startMs).toISOString())}</span>
            {p.detail ? <span className="muted"> · {p.detail}</span> : null}
          </li>
        ))}
        {t.finished && (
          <li>
            <span className="swatch phase-finished" aria-hidden="true" />
            <span className="phase-name">finished</span> <StatusBadge status={t.finished.status} />{' '}
            <span className="muted">at {formatTime(new Date(t.finished.atMs).toISOString())}</span>
          </li>
        )}
      </ol>
    </div>
  );
}
