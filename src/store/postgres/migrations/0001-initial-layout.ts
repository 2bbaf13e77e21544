import type { Migration } from './index.js';

/**
 * Runs are rows with their filter and lease columns lifted out of the JSONB `doc` (the full
 * record, the source of truth on read). `run_seq` numbers admissions for every instance alike.
 * Each OrchestratorState document is one row per state key (`docdb:<key>`; `default` otherwise)
 * with tasksProcessed and the task history beside it, so recording a finished task touches
 * neither the rest of the document nor another instance's rows.
 */
export const initialLayout: Migration = {
  version: 1,
  description: 'runs, state documents, task history, append collections, keyed documents',
  sql: `
CREATE SEQUENCE run_seq;

CREATE TABLE runs (
  run_id TEXT PRIMARY KEY,
  seq BIGINT NOT NULL UNIQUE,
  type TEXT NOT NULL,
  status TEXT NOT NULL,
  queue_state TEXT,
  internal BOOLEAN NOT NULL,
  attempt INTEGER NOT NULL,
  lease_owner TEXT,
  lease_until TIMESTAMPTZ,
  created_at TEXT,
  updated_at TEXT,
  doc JSONB NOT NULL
);
CREATE INDEX runs_claim ON runs (seq) WHERE queue_state = 'ready';
CREATE INDEX runs_listing ON runs (internal, seq);
CREATE INDEX runs_type ON runs (type, seq);
CREATE INDEX runs_status ON runs (status, type);
CREATE INDEX runs_lease ON runs (lease_until) WHERE status = 'running';

CREATE TABLE state_documents (
  state_key TEXT PRIMARY KEY,
  tasks_processed BIGINT NOT NULL DEFAULT 0,
  doc JSONB NOT NULL
);

CREATE TABLE task_history (
  id BIGSERIAL PRIMARY KEY,
  state_key TEXT NOT NULL,
  record JSONB NOT NULL
);
CREATE INDEX task_history_key ON task_history (state_key, id);

CREATE TABLE appended (
  id BIGSERIAL PRIMARY KEY,
  collection TEXT NOT NULL,
  record JSONB NOT NULL
);
CREATE INDEX appended_collection ON appended (collection, id);

CREATE TABLE documents (
  collection TEXT NOT NULL,
  id TEXT NOT NULL,
  doc JSONB NOT NULL,
  PRIMARY KEY (collection, id)
);
`,
};
