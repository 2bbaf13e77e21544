import type { Migration } from './index.js';

/**
 * Rate buckets (src/store/limit-buckets.ts) count the runs started inside their window: by this
 * index a limited claim reads those starts alone, not the whole table.
 */
export const runStarts: Migration = {
  version: 8,
  description: 'runs indexed by start time (rate buckets count recent starts)',
  sql: `CREATE INDEX runs_started ON runs (started_at) WHERE started_at IS NOT NULL;`,
};
