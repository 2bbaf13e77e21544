import type { Migration } from './index.js';

/**
 * Write stamps of run events (docs/events.md). A new event is written with the placeholder
 * stamp -1 and `run_events_stamped` replaces it, inside the same INSERT or UPDATE, by the
 * writing transaction's id (`pg_current_xact_id()`, 64 bits with its epoch, so it never wraps):
 * a transaction's id is known only inside it. `last_tx` is that id for the run's last write that
 * appended events; the change feed looks runs up by it. Runs stored before keep unstamped
 * events (read as stamp 0) and `last_tx` 0.
 */
export const runEventStamps: Migration = {
  version: 3,
  description: 'write stamps of run events',
  sql: `
ALTER TABLE runs ADD COLUMN last_tx BIGINT NOT NULL DEFAULT 0;
CREATE INDEX runs_last_tx ON runs (last_tx);
CREATE FUNCTION run_events_stamped(doc JSONB) RETURNS JSONB
LANGUAGE sql VOLATILE AS $$
  SELECT jsonb_set(doc, '{events}', COALESCE((
    SELECT jsonb_agg(
      CASE WHEN e.value -> 'tx' = '-1'::jsonb
        THEN jsonb_set(e.value, '{tx}', to_jsonb(pg_current_xact_id()::text::bigint))
        ELSE e.value END
      ORDER BY e.ord)
    FROM jsonb_array_elements(doc -> 'events') WITH ORDINALITY AS e(value, ord)
  ), '[]'::jsonb))
$$;
`,
};
