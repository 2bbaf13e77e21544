import type Database from 'better-sqlite3';
import { STATE_BOUNDS, emptyOrchestratorState, type OrchestratorState, type TaskRecord } from '../../tasks/types.js';
import { stateProblem } from '../record-checks.js';
import { boundState } from '../../tasks/state-document.js';
import {
  COMMUNITY_RESPONSES,
  DEPLOYED_AGENTS,
  DOCS_INDEXED,
  RSS_DRAFTS,
  TASK_HISTORY,
  deleteAllItems,
  insertItems,
  readItems,
  type ItemTable,
} from './item-tables.js';
import { statement } from './statements.js';

/**
 * The OrchestratorState document mapped onto tables: scalars in `state_sections`, each list in
 * its own typed table. Only the parts that changed are rewritten, so bumping tasksProcessed does
 * not rewrite docsIndexed.
 */

const SCALAR_SECTIONS = ['lastStartedAt', 'tasksProcessed', 'notes'] as const;

type ListKey = 'taskHistory' | 'docsIndexed' | 'communityResponses' | 'rssDrafts' | 'deployedAgents';

const LIST_TABLES: { [K in ListKey]: ItemTable<OrchestratorState[K][number]> } = {
  taskHistory: TASK_HISTORY,
  docsIndexed: DOCS_INDEXED,
  communityResponses: COMMUNITY_RESPONSES,
  rssDrafts: RSS_DRAFTS,
  deployedAgents: DEPLOYED_AGENTS,
};

export function readState(db: Database.Database): OrchestratorState {
  const state = emptyOrchestratorState();
  const rows = statement(db, 'SELECT key, value FROM state_sections').all() as Array<{ key: string; value: string }>;
  const sections = new Map(rows.map((row) => [row.key, JSON.parse(row.value) as unknown]));
  if (sections.has('lastStartedAt')) state.lastStartedAt = sections.get('lastStartedAt') as string | null;
  if (sections.has('tasksProcessed')) state.tasksProcessed = sections.get('tasksProcessed') as number;
  if (sections.has('notes')) state.notes = sections.get('notes') as string;
  state.taskHistory = readItems(db, LIST_TABLES.taskHistory);
  state.docsIndexed = readItems(db, LIST_TABLES.docsIndexed);
  state.communityResponses = readItems(db, LIST_TABLES.communityResponses);
  state.rssDrafts = readItems(db, LIST_TABLES.rssDrafts);
  state.deployedAgents = readItems(db, LIST_TABLES.deployedAgents);
  return state;
}

/** Atomic read-modify-write of the document; call inside the batch transaction. */
export function mutateState(
  db: Database.Database,
  mutate: (current: OrchestratorState) => OrchestratorState | null,
): OrchestratorState {
  const before = readState(db);
  const next = mutate(structuredClone(before));
  if (next === null) return before;
  const after = JSON.parse(JSON.stringify(boundState(next))) as OrchestratorState;
  const problem = stateProblem(after as unknown as Record<string, unknown>, 'state.', true);
  if (problem !== null) throw new Error(`refusing to store the orchestrator state: ${problem}`);
  writeState(db, before, after);
  return after;
}

function writeState(db: Database.Database, before: OrchestratorState, after: OrchestratorState): void {
  for (const key of SCALAR_SECTIONS) {
    const value = after[key];
    if (value === undefined) {
      statement(db, 'DELETE FROM state_sections WHERE key = ?').run(key);
    } else if (JSON.stringify(value) !== JSON.stringify(before[key])) {
      statement(db, 'INSERT INTO state_sections (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run(
        key,
        JSON.stringify(value),
      );
    }
  }
  replaceListIfChanged(db, LIST_TABLES.taskHistory, before.taskHistory, after.taskHistory);
  replaceListIfChanged(db, LIST_TABLES.docsIndexed, before.docsIndexed, after.docsIndexed);
  replaceListIfChanged(db, LIST_TABLES.communityResponses, before.communityResponses, after.communityResponses);
  replaceListIfChanged(db, LIST_TABLES.rssDrafts, before.rssDrafts, after.rssDrafts);
  replaceListIfChanged(db, LIST_TABLES.deployedAgents, before.deployedAgents, after.deployedAgents);
}

function replaceListIfChanged<T>(db: Database.Database, table: ItemTable<T>, before: T[], after: T[]): void {
  if (JSON.stringify(before) === JSON.stringify(after)) return;
  deleteAllItems(db, table);
  insertItems(db, table, after);
}

/**
 * One finished task: tasksProcessed + 1, one task_history row, and the oldest rows beyond the
 * bound deleted. Call inside the batch transaction.
 */
export function recordTask(db: Database.Database, record: TaskRecord): void {
  const row = statement(db, "SELECT value FROM state_sections WHERE key = 'tasksProcessed'").get() as { value: string } | undefined;
  const processed = row === undefined ? 0 : (JSON.parse(row.value) as number);
  statement(db, 'INSERT INTO state_sections (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run(
    'tasksProcessed',
    JSON.stringify(processed + 1),
  );
  insertItems(db, LIST_TABLES.taskHistory, [record]);
  // Everything at or below the newest-but-`bound` id goes: a walk of `bound` entries down the id
  // index and a range delete, where `id NOT IN (newest bound)` built a temporary set and scanned
  // the table on every finished task: about 18 of the 22 µs this function took, in isolation.
  statement(
    db,
    `DELETE FROM ${LIST_TABLES.taskHistory.name} WHERE id <= (SELECT id FROM ${LIST_TABLES.taskHistory.name} ORDER BY id DESC LIMIT 1 OFFSET ?)`,
  ).run(STATE_BOUNDS.taskHistory);
}
