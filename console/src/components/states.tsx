import type { ReactNode } from 'react';
import { ErrorNotice } from './common.js';

/** What a page or section shows when there is nothing yet: a sentence, and what to do about it. */
export function EmptyState({ children }: { children: ReactNode }) {
  return (
    <p className="empty" role="status">
      {children}
    </p>
  );
}

/**
 * Loading, error, empty or the content of one query: every section of a page goes through one of
 * these, so none is ever blank.
 */
export function Loadable<T>(props: {
  query: { data: T | undefined; error: unknown; isPending: boolean };
  label: string;
  isEmpty?: (data: T) => boolean;
  empty?: ReactNode;
  children: (data: T) => ReactNode;
}) {
  const { query, label, isEmpty, empty, children } = props;
  if (query.error) return <ErrorNotice error={query.error} />;
  if (query.isPending || query.data === undefined) {
    return (
      <p role="status" className="loading" aria-busy="true">
        Loading {label}…
      </p>
    );
  }
  if (isEmpty?.(query.data)) return <EmptyState>{empty ?? `No ${label}.`}</EmptyState>;
  return <>{children(query.data)}</>;
}

/** A titled section of a page; the heading labels it for screen readers. */
export function Section({ id, title, actions, children }: { id: string; title: string; actions?: ReactNode; children: ReactNode }) {
  return (
    <section aria-labelledby={`${id}-heading`} className="section">
      <div className="section-head">
        <h2 id={`${id}-heading`}>{title}</h2>
        {actions}
      </div>
      {children}
    </section>
  );
}
