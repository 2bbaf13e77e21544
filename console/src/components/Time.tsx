import { useEffect, useState } from 'react';
import { formatAbsolute, formatDuration, formatRelative } from '../lib/time.js';

/** The current time, refreshed every `everyMs`, so relative times and countdowns move. */
export function useNow(everyMs = 15_000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(timer);
  }, [everyMs]);
  return now;
}

/** "3 min ago", with the exact local instant as a tooltip and the ISO value for machines. */
export function RelativeTime({ iso, absolute = false }: { iso: string | null | undefined; absolute?: boolean }) {
  const now = useNow();
  if (!iso) return <span className="muted">—</span>;
  return (
    <time dateTime={iso} title={formatAbsolute(iso)}>
      {absolute ? formatAbsolute(iso) : formatRelative(iso, now)}
    </time>
  );
}

export function Duration({ ms }: { ms: number | null | undefined }) {
  return <span className="num">{formatDuration(ms)}</span>;
}

/** Time left until `iso`: "12 min left", or "overdue by 3 min" once it has passed. */
export function TimeLeft({ iso, label = 'left' }: { iso: string | null | undefined; label?: string }) {
  const now = useNow(5_000);
  if (!iso) return <span className="muted">no deadline</span>;
  const delta = Date.parse(iso) - now;
  const text = delta >= 0 ? `${formatDuration(delta)} ${label}` : `overdue by ${formatDuration(-delta)}`;
  return (
    <time dateTime={iso} title={formatAbsolute(iso)} className={delta < 0 ? 'overdue' : delta < 15 * 60_000 ? 'due-soon' : undefined}>
      {text}
    </time>
  );
}
