import type Database from 'better-sqlite3';

/**
 * Takes a SQLite state database back to layout 6: no not-before column nor group-head indexes
 * (layout 10), no flow id column (layout 9; the flow steps' status words stay), no index of start times (layout 8), no fair-claim columns (layout 7).
 */
export function undoLayout7(db: Database.Database): void {
  db.exec(`DROP INDEX runs_ready_heads; DROP INDEX runs_ready_not_before; ALTER TABLE runs DROP COLUMN not_before;
CREATE INDEX runs_ready_groups ON runs (concurrency_key, priority, seq) WHERE queue_state = 'ready';
DELETE FROM schema_migrations WHERE version = 10;
DROP INDEX runs_flow; ALTER TABLE runs DROP COLUMN flow_id; DELETE FROM schema_migrations WHERE version = 9;
DROP INDEX runs_started; DELETE FROM schema_migrations WHERE version = 8;
DROP INDEX runs_ready_groups; DROP INDEX runs_key_started;
ALTER TABLE runs DROP COLUMN started_at; ALTER TABLE runs DROP COLUMN priority; ALTER TABLE runs DROP COLUMN concurrency_key;
DELETE FROM schema_migrations WHERE version = 7`);
}
