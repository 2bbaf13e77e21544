import type { Migration } from './index.js';

/**
 * Runs of one status, newest or oldest first, read from an index in that order.
 *
 * `runs_status` was (status, type). A page of one status (`WHERE status = $1 ORDER BY seq DESC
 * LIMIT 50`, as the incident sweep reads the failed and the retrying runs every few seconds on
 * every instance) then had no index in its order, and the planner walked the whole table
 * backwards by `seq` looking for rows of a status that had none: 80-400 ms a read on a table of
 * 40,000 runs, most of PostgreSQL's time outside the runs' own writes with three instances. On
 * (status, seq) the same read touches only the rows of that status. The per-type count of running
 * runs under `typeConcurrency` reads the running rows of this index as it read them of the old one.
 * Built in the migration's transaction, which holds writes to `runs` until it commits.
 */
export const runsByStatus: Migration = {
  version: 6,
  description: 'runs indexed by status in seq order (pages of one status no longer walk the table)',
  sql: `
DROP INDEX IF EXISTS runs_status;
CREATE INDEX runs_status ON runs (status, seq);
`,
};
