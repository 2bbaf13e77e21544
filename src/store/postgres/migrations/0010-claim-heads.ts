import type { Migration } from './index.js';

/**
 * Claims read a bounded set (docs/queue.md, "How the stores find candidates"): the oldest few
 * ready runs of each (concurrency key, priority, type) group, found by skipping from one group to
 * the next along `runs_ready_heads`, instead of ranking every ready run in a window.
 *
 * `not_before` lifts a run's not-before instant (a trailing debounce's window end) out of its
 * document. Runs that have one are kept out of `runs_ready_heads` and read by
 * `runs_ready_not_before` only once due, so runs waiting for their window cost a claim nothing.
 * Adding the stored column rewrites the runs table once, under its lock, when the migration runs.
 */
export const claimHeads: Migration = {
  version: 10,
  description: 'ready runs indexed by (key, priority, type) group heads and by not-before time, for claims that read a bounded set',
  sql: `
ALTER TABLE runs ADD COLUMN not_before TEXT COLLATE "C" GENERATED ALWAYS AS (doc->>'notBefore') STORED;
DROP INDEX IF EXISTS runs_ready_groups;
CREATE INDEX runs_ready_heads ON runs (concurrency_key, priority, type, seq) WHERE queue_state = 'ready' AND not_before IS NULL;
CREATE INDEX runs_ready_not_before ON runs (not_before) WHERE queue_state = 'ready' AND not_before IS NOT NULL;
`,
};
