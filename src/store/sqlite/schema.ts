import type Database from 'better-sqlite3';
import { conflict } from '../../domain/errors.js';

/**
 * Layout versions, applied in order: 2 is the normalized second-generation layout (version 1 was
 * the single JSON document, never upgraded in place); 3 adds a covering index so the per-type
 * run counts the aggregates read are answered from the index, not a scan of every run document;
 * 4 keeps the row counts of the append collections in `counters`, maintained by triggers; 5
 * drops the index of run creation times, which no query uses; 6 adds the run events' write
 * stamps: each run's `last_tx` (indexed, the change feed's lookup) and the `event_tx` counter;
 * 7 lifts each run's concurrency key, priority and start time out of its document as generated
 * columns, indexed for claims in fair order (src/store/fair-claims.ts); 8 indexes run start
 * times (rate buckets count recent starts: src/store/limit-buckets.ts); 9 stores flow steps'
 * own status words (`waiting`, `skipped`: docs/flows.md) and indexes each run's flow id; 10 lifts
 * the not-before time (a trailing debounce's window end) out too and indexes ready runs by (key,
 * priority, type) group heads and by that time, so a claim reads a bounded set (docs/queue.md).
 */
export const SCHEMA_VERSION = 10;

/** The `counters` row holding the last write stamp given to run events (layout 6). */
export const EVENT_TX_COUNTER = 'event_tx';

/** The `counters` row holding the row count of an append table (layout 4). */
export const rowCountName = (table: string): string => `rows:${table}`;

/**
 * Row counts of the append tables, kept by triggers whoever inserts or deletes (the store, the
 * migration tool, an operator's SQL). The retention trim then knows how many rows to drop without
 * walking `keep` rows of the table on every append, and a count needs no scan.
 */
const APPEND_ROW_COUNTS = ['telemetry', 'milestones']
  .map(
    (table) => `
INSERT INTO counters (name, value) SELECT '${rowCountName(table)}', COUNT(*) FROM ${table};
CREATE TRIGGER ${table}_rows_added AFTER INSERT ON ${table}
BEGIN UPDATE counters SET value = value + 1 WHERE name = '${rowCountName(table)}'; END;
CREATE TRIGGER ${table}_rows_removed AFTER DELETE ON ${table}
BEGIN UPDATE counters SET value = value - 1 WHERE name = '${rowCountName(table)}'; END;`,
  )
  .join('\n');

/**
 * Runs are rows with their filter columns lifted out of the JSON `doc` (the full record and the
 * source of truth on read). OrchestratorState is split into scalar sections and one typed table
 * per list; telemetry and milestones get typed tables as well; later features' keyed documents
 * share `documents`.
 */
const LAYOUT_V2 = `
CREATE TABLE counters (
  name TEXT PRIMARY KEY,
  value INTEGER NOT NULL
);
INSERT INTO counters (name, value) VALUES ('run_seq', 0);

CREATE TABLE runs (
  run_id TEXT PRIMARY KEY,
  seq INTEGER NOT NULL UNIQUE,
  type TEXT NOT NULL,
  status TEXT NOT NULL,
  queue_state TEXT,
  internal INTEGER NOT NULL,
  created_at TEXT,
  updated_at TEXT,
  doc TEXT NOT NULL CHECK (json_valid(doc))
);
CREATE INDEX runs_claim ON runs (queue_state, seq);
CREATE INDEX runs_listing ON runs (internal, seq);
CREATE INDEX runs_created ON runs (internal, created_at);
CREATE INDEX runs_type ON runs (type, seq);
CREATE INDEX runs_status ON runs (status, type);

CREATE TABLE state_sections (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL CHECK (json_valid(value))
);

CREATE TABLE task_history (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  type TEXT,
  status TEXT,
  timestamp TEXT,
  duration_ms REAL,
  error TEXT,
  record TEXT NOT NULL CHECK (json_valid(record))
);

CREATE TABLE community_responses (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  timestamp TEXT,
  post_id TEXT,
  post_title TEXT,
  subcommunity TEXT,
  confidence REAL,
  approved INTEGER,
  posted TEXT,
  record TEXT NOT NULL CHECK (json_valid(record))
);

CREATE TABLE rss_drafts (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  timestamp TEXT,
  feed_url TEXT,
  item_title TEXT,
  item_url TEXT,
  published_at TEXT,
  relevance_score REAL,
  urgency TEXT,
  record TEXT NOT NULL CHECK (json_valid(record))
);

CREATE TABLE deployed_agents (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  timestamp TEXT,
  agent_name TEXT,
  deploy_path TEXT,
  record TEXT NOT NULL CHECK (json_valid(record))
);

CREATE TABLE docs_indexed (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  path TEXT NOT NULL
);

CREATE TABLE telemetry (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  kind TEXT,
  timestamp TEXT,
  record TEXT NOT NULL CHECK (json_valid(record))
);

CREATE TABLE milestones (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  kind TEXT,
  timestamp TEXT,
  record TEXT NOT NULL CHECK (json_valid(record))
);

CREATE TABLE documents (
  collection TEXT NOT NULL,
  id TEXT NOT NULL,
  doc TEXT NOT NULL CHECK (json_valid(doc)),
  PRIMARY KEY (collection, id)
);
`;

const MIGRATIONS: ReadonlyArray<{ version: number; description: string; sql: string }> = [
  { version: 2, description: 'normalized second-generation layout', sql: LAYOUT_V2 },
  {
    version: 3,
    description: 'covering index of run counts',
    // Public counts filter on `internal` first; counts of every run group in index order.
    sql: 'CREATE INDEX runs_counts ON runs (internal, type, status, queue_state); CREATE INDEX runs_counts_all ON runs (type, status, queue_state);',
  },
  { version: 4, description: 'row counts of the append tables', sql: APPEND_ROW_COUNTS },
  {
    version: 5,
    description: 'no index of run creation times',
    // No query filters or orders runs by created_at: the index was one more B-tree to update
    // on every run write (an insert and two updates per run cost 72-74 µs with it, 67-71 without).
    sql: 'DROP INDEX IF EXISTS runs_created;',
  },
  {
    version: 6,
    description: 'write stamps of run events',
    // Runs stored before have unstamped events (read as stamp 0): last_tx 0, the counter from 0.
    sql: `ALTER TABLE runs ADD COLUMN last_tx INTEGER NOT NULL DEFAULT 0;
CREATE INDEX runs_last_tx ON runs (last_tx);
INSERT INTO counters (name, value) VALUES ('${EVENT_TX_COUNTER}', 0);`,
  },
  {
    version: 7,
    description: 'concurrency key, priority and start time of runs as columns, for claims in fair order',
    // Virtual: computed from the document on read, so no write names them and none can disagree
    // with it; the indexes keep their values. Unkeyed runs share the empty key.
    sql: `ALTER TABLE runs ADD COLUMN concurrency_key TEXT GENERATED ALWAYS AS (coalesce(json_extract(doc, '$.concurrencyKey'), '')) VIRTUAL;
ALTER TABLE runs ADD COLUMN priority INTEGER GENERATED ALWAYS AS (coalesce(json_extract(doc, '$.priority'), 3)) VIRTUAL;
ALTER TABLE runs ADD COLUMN started_at TEXT GENERATED ALWAYS AS (json_extract(doc, '$.startedAt')) VIRTUAL;
CREATE INDEX runs_ready_groups ON runs (concurrency_key, priority, seq) WHERE queue_state = 'ready';
CREATE INDEX runs_key_started ON runs (concurrency_key, started_at);`,
  },
  {
    version: 8,
    description: 'runs indexed by start time (rate buckets count recent starts)',
    sql: 'CREATE INDEX runs_started ON runs (started_at) WHERE started_at IS NOT NULL;',
  },
  {
    version: 9,
    description: 'flow steps stored waiting and skipped, runs indexed by flow id and status',
    // A waiting step was `pending` with queue state `waiting`, a skipped one `cancelled` with
    // flowStep.skipped (src/store/run-rules.ts withFlowStepStatus). The flow id is virtual, as
    // in layout 7; the index keeps it, so a flow's promotion reads only its own runs.
    sql: `UPDATE runs SET status = 'waiting', doc = json_set(doc, '$.status', 'waiting') WHERE status = 'pending' AND queue_state = 'waiting';
UPDATE runs SET status = 'skipped', doc = json_set(doc, '$.status', 'skipped')
  WHERE status = 'cancelled' AND json_type(doc, '$.flowStep.skipped') = 'object';
ALTER TABLE runs ADD COLUMN flow_id TEXT GENERATED ALWAYS AS (json_extract(doc, '$.flowStep.flowId')) VIRTUAL;
CREATE INDEX runs_flow ON runs (flow_id, status, seq) WHERE flow_id IS NOT NULL;`,
  },
  {
    version: 10,
    description: 'ready runs indexed by (key, priority, type) group heads and by not-before time, for claims that read a bounded set',
    // A run with a not-before time stays out of the heads index: read by the second once due.
    sql: `ALTER TABLE runs ADD COLUMN not_before TEXT GENERATED ALWAYS AS (json_extract(doc, '$.notBefore')) VIRTUAL;
DROP INDEX IF EXISTS runs_ready_groups;
CREATE INDEX runs_ready_heads ON runs (concurrency_key, priority, type, seq) WHERE queue_state = 'ready' AND not_before IS NULL;
CREATE INDEX runs_ready_not_before ON runs (not_before) WHERE queue_state = 'ready' AND not_before IS NOT NULL;`,
  },
];

/**
 * Brings the database to SCHEMA_VERSION in one immediate transaction, applying each missing
 * layout version in order. A database written by a newer build, or in the first layout, is
 * refused instead of being read with the wrong layout.
 */
export function migrate(db: Database.Database, path: string): void {
  db.transaction(() => {
    db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version INTEGER PRIMARY KEY,
      description TEXT NOT NULL,
      applied_at TEXT NOT NULL
    )`);
    const row = db.prepare('SELECT MAX(version) AS version FROM schema_migrations').get() as { version: number | null };
    const current = row.version ?? 0;
    if (current === SCHEMA_VERSION) return;
    if (current > SCHEMA_VERSION || (current !== 0 && current < 2)) {
      throw conflict(`state database ${path} has layout version ${current}; this build reads version ${SCHEMA_VERSION}`);
    }
    const record = db.prepare('INSERT INTO schema_migrations (version, description, applied_at) VALUES (?, ?, ?)');
    for (const migration of MIGRATIONS.filter((m) => m.version > current)) {
      db.exec(migration.sql);
      record.run(migration.version, migration.description, new Date().toISOString());
    }
  }).immediate();
}
