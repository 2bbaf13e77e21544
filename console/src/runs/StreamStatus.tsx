import { describeError } from '../api/errors.js';
import type { EventStreamStatus } from '../api/use-event-stream.js';

const TEXT: Record<EventStreamStatus['state'], string> = {
  idle: 'not connected',
  connecting: 'connecting…',
  open: 'live',
  reconnecting: 'reconnecting…',
  waiting: 'rate limited, waiting…',
  ended: 'finished',
  failed: 'stopped',
};

/** One line saying whether the view is live, and why not when it is not. */
export function StreamStatus({ status, label }: { status: EventStreamStatus; label: string }) {
  const wait = status.waitMs !== null ? ` (next try in ${Math.ceil(status.waitMs / 1000)} s)` : '';
  return (
    <p className={`stream-status stream-${status.state}`} aria-live="polite">
      <span className="dot" aria-hidden="true" /> {label}: {TEXT[status.state]}
      {wait}
      {status.state === 'failed' && status.error ? ` — ${describeError(status.error)}` : ''}
    </p>
  );
}
