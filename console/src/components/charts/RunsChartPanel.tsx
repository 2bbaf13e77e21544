import { lazy, Suspense } from 'react';
import type { RunStats } from '../../lib/api-types.js';
import { formatDuration } from '../../lib/time.js';

// The chart library loads only with the overview's charts, not with every page.
const RunsChart = lazy(() => import('./RunsChart.js'));

/** The chart with a text summary for screen readers and a legend with totals. */
export function RunsChartPanel({ stats, title }: { stats: RunStats; title: string }) {
  const totals = stats.series.map((s) => ({ status: s.status, total: s.counts.reduce((a, b) => a + b, 0) }));
  const all = totals.reduce((a, t) => a + t.total, 0);
  const summary = `${title}: ${all} runs in ${stats.bucketStarts.length} buckets of ${formatDuration(stats.bucketSeconds * 1000)}; ${totals
    .filter((t) => t.total > 0)
    .map((t) => `${t.total} ${t.status}`)
    .join(', ') || 'none'}.`;
  return (
    <figure className="card chart-figure">
      <figcaption>
        <h3>{title}</h3>
        <p className="hint">Runs created per {formatDuration(stats.bucketSeconds * 1000)}, by their status now.</p>
      </figcaption>
      <div role="img" aria-label={summary}>
        <Suspense fallback={<p className="loading">Drawing chart…</p>}>
          <RunsChart stats={stats} />
        </Suspense>
      </div>
      <ul className="chart-legend" aria-label={`${title} totals`}>
        {totals.map((t) => (
          <li key={t.status}>
            <span className={`swatch swatch-${t.status}`} aria-hidden="true" />
            {t.status} <span className="num">{t.total}</span>
          </li>
        ))}
      </ul>
      {stats.sample.truncated && <p className="hint">Only the {stats.sample.scanLimit} newest runs were read; older buckets undercount.</p>}
    </figure>
  );
}
