import type { Migration } from './index.js';

/**
 * The count of processed tasks without a hot row. Every attempt's final write added to
 * `state_documents.tasks_processed`, so every finishing transaction of every instance took that
 * one row's lock and held it to its commit: finishes went one WAL flush at a time across the
 * fleet (with three instances a finish waited 239 ms for it on average). A finish now inserts
 * its count into `task_count_deltas` instead; the count is the column plus the deltas, and a
 * fold moves the deltas into the column from time to time (state.ts).
 *
 * And an index of the queued runs (ready or held): the periodic sweeps of held runs (approval
 * expiry, incidents) walked the whole table, 9 ms a scan at a few thousand runs and growing with
 * it. Finished runs (queue_state null) are not in it, so a finish pays nothing for it.
 */
export const taskCountDeltas: Migration = {
  version: 4,
  description: 'processed-task counts as deltas, an index of queued runs',
  sql: `
CREATE TABLE task_count_deltas (
  id BIGSERIAL PRIMARY KEY,
  state_key TEXT NOT NULL,
  n INTEGER NOT NULL
);
CREATE INDEX task_count_deltas_key ON task_count_deltas (state_key);
CREATE INDEX runs_queued ON runs (queue_state, seq) WHERE queue_state IS NOT NULL;
`,
};
