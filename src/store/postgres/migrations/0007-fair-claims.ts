import type { Migration } from './index.js';

/**
 * Claims in fair order (src/store/fair-claims.ts, docs/queue.md): each run's concurrency key
 * (the empty key when it has none), priority and last start lifted out of its document as
 * generated columns, so no write path names them and a record can never disagree with its row.
 * `runs_ready_groups` gives the oldest ready runs of each (key, priority); `runs_key_started`
 * answers when a key's latest run started from the index alone. Both text columns compare in
 * the C collation: started_at is an ISO instant, whose byte order is time order.
 */
export const fairClaims: Migration = {
  version: 7,
  description: 'concurrency key, priority and start time of runs as columns, for claims in fair order',
  sql: `
ALTER TABLE runs
  ADD COLUMN concurrency_key TEXT COLLATE "C" GENERATED ALWAYS AS (COALESCE(doc->>'concurrencyKey', '')) STORED,
  ADD COLUMN priority SMALLINT GENERATED ALWAYS AS (COALESCE((doc->>'priority')::smallint, 3)) STORED,
  ADD COLUMN started_at TEXT COLLATE "C" GENERATED ALWAYS AS (doc->>'startedAt') STORED;
CREATE INDEX runs_ready_groups ON runs (concurrency_key, priority, seq) WHERE queue_state = 'ready';
CREATE INDEX runs_key_started ON runs (concurrency_key, started_at);
`,
};
