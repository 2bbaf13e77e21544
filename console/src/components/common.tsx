import type { ReactNode } from 'react';
import { describeError, ApiError } from '../api/errors.js';

/** An error as the operator needs it: the service's sentence, its code, the request id and each field problem. */
export function ErrorNotice({ error }: { error: unknown }) {
  return (
    <div className="error" role="alert">
      <p>{describeError(error)}</p>
      {error instanceof ApiError && error.details.length > 0 && (
        <ul aria-label="Error details">
          {error.details.map((d) => (
            <li key={`${d.path}|${d.message}`}>
              <code>{d.path}</code> {d.message}
            </li>
          ))}
        </ul>
      )}
      {error instanceof ApiError && error.requestId && <p className="muted">Request id {error.requestId}</p>}
    </div>
  );
}

/** Loading, error or the content of one query. */
export function QueryView<T>(props: { query: { data: T | undefined; error: unknown; isPending: boolean }; label: string; children: (data: T) => ReactNode }) {
  const { query, label, children } = props;
  if (query.error) return <ErrorNotice error={query.error} />;
  if (query.isPending || query.data === undefined) return <p role="status">Loading {label}…</p>;
  return <>{children(query.data)}</>;
}

export function StatusBadge({ status, title }: { status: string | null | undefined; title?: string }) {
  const text = status ?? 'unknown';
  // The stage of a held run reads as words, as its run badge does (RunStatusBadge).
  return (
    <span className={`badge badge-${text.replace(/[^a-z-]/gi, '')}`} title={title}>
      {text === 'awaiting-approval' ? 'awaiting approval' : text}
    </span>
  );
}

/** What a flow step's own run statuses mean (docs/flows.md), told on their badges. */
const FLOW_STEP_STATUS_TITLES: Readonly<Record<string, string>> = {
  waiting: "a flow step whose dependencies have not ended: it holds no slot until they have",
  skipped: "a flow step ended without running: a dependency did not succeed",
};

/**
 * A run's status badge. A held run reads "awaiting approval" (its status, `pending`, stays in
 * the tooltip and for screen readers), so nobody takes it for a run about to start.
 */
export function RunStatusBadge({ status, held }: { status: string; held: boolean }) {
  if (!held) return <StatusBadge status={status} title={FLOW_STEP_STATUS_TITLES[status]} />;
  return (
    <span className="badge badge-awaiting-approval" title={`status ${status}: held until an operator decides`}>
      awaiting approval<span className="visually-hidden"> (status {status})</span>
    </span>
  );
}
