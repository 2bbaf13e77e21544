import type { Migration } from './index.js';

/**
 * Flow steps' own run status words (DECISIONS.md "Platform", docs/flows.md): a step waiting for
 * its dependencies was stored `pending` with queue state `waiting`, now `waiting`; a step its
 * dependencies' outcome ended was stored `cancelled` with `flowStep.skipped`, now `skipped`. The
 * rows and their documents are rewritten together. Each run's flow id is lifted out of its
 * document as a generated column, indexed with the status: a flow's promotion reads its waiting
 * steps, and whether any step has not ended, from `runs_flow` instead of every run of the table
 * (a run-id prefix has no index).
 */
export const flowStepStatuses: Migration = {
  version: 9,
  description: 'flow steps stored waiting and skipped, runs indexed by flow id and status',
  sql: `
UPDATE runs SET status = 'waiting', doc = jsonb_set(doc, '{status}', '"waiting"')
  WHERE status = 'pending' AND queue_state = 'waiting';
UPDATE runs SET status = 'skipped', doc = jsonb_set(doc, '{status}', '"skipped"')
  WHERE status = 'cancelled' AND jsonb_typeof(doc #> '{flowStep,skipped}') = 'object';
ALTER TABLE runs ADD COLUMN flow_id TEXT COLLATE "C" GENERATED ALWAYS AS (doc #>> '{flowStep,flowId}') STORED;
CREATE INDEX runs_flow ON runs (flow_id, status, seq) WHERE flow_id IS NOT NULL;
`,
};
