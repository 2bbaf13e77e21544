import type Database from 'better-sqlite3';
import { STATE_BOUNDS, emptyOrchestratorState, type OrchestratorState, type TaskRecord } from '../../domain/orchestrator-state.js';
import { stateProblem } from '../record-checks.js';
import { stateCorrupt } from '../types.js';
import { boundState, withTaskRecord } from '../../domain/orchestrator-state.js';
import { deepFreeze } from '../deep-freeze.js';
import type { WriteContext } from './write-context.js';
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

/**
 * Read-modify-write of the document the write sees (the store holds it, deep-frozen); the
 * statements rewrite only the sections that changed. Returns the new document, not frozen.
 */
export function mutateState(ctx: WriteContext, mutate: (current: OrchestratorState) => OrchestratorState | null): OrchestratorState {
  const before = ctx.state;
  const next = mutate(structuredClone(before) as OrchestratorState);
  if (next === null) return structuredClone(before) as OrchestratorState;
  const text = JSON.stringify(boundState(next));
  const after = JSON.parse(text) as OrchestratorState;
  const problem = stateProblem(after as unknown as Record<string, unknown>, 'state.', true);
  if (problem !== null) throw stateCorrupt(`refusing to store the orchestrator state: ${problem}`);
  writeState(ctx, before, after);
  ctx.state = deepFreeze(JSON.parse(text) as OrchestratorState);
  return after;
}

function writeState(ctx: WriteContext, before: OrchestratorState, after: OrchestratorState): void {
  for (const key of SCALAR_SECTIONS) {
    const value = after[key];
    if (value === undefined) {
      ctx.run('DELETE FROM state_sections WHERE key = ?', [key]);
    } else if (JSON.stringify(value) !== JSON.stringify(before[key])) {
      ctx.run('INSERT INTO state_sections (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value', [
        key,
        JSON.stringify(value),
      ]);
    }
  }
  replaceListIfChanged(ctx, LIST_TABLES.taskHistory, before.taskHistory, after.taskHistory);
  replaceListIfChanged(ctx, LIST_TABLES.docsIndexed, before.docsIndexed, after.docsIndexed);
  replaceListIfChanged(ctx, LIST_TABLES.communityResponses, before.communityResponses, after.communityResponses);
  replaceListIfChanged(ctx, LIST_TABLES.rssDrafts, before.rssDrafts, after.rssDrafts);
  replaceListIfChanged(ctx, LIST_TABLES.deployedAgents, before.deployedAgents, after.deployedAgents);
}

function replaceListIfChanged<T>(ctx: WriteContext, table: ItemTable<T>, before: T[], after: T[]): void {
  if (JSON.stringify(before) === JSON.stringify(after)) return;
  deleteAllItems(ctx, table);
  insertItems(ctx, table, after);
}

/**
 * One finished task: tasksProcessed + 1, one task_history row, and the oldest rows beyond the
 * bound deleted; the held document gets the same change, as a read of the tables would give it.
 */
export function recordTask(ctx: WriteContext, record: TaskRecord): void {
  const processed = ctx.state.tasksProcessed;
  ctx.run('INSERT INTO state_sections (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value', [
    'tasksProcessed',
    JSON.stringify(processed + 1),
  ]);
  insertItems(ctx, LIST_TABLES.taskHistory, [record]);
  // Everything at or below the newest-but-`bound` id goes: a walk of `bound` entries down the id
  // index and a range delete, where `id NOT IN (newest bound)` built a temporary set and scanned
  // the table on every finished task: about 18 of the 22 µs this function took, in isolation.
  ctx.run(
    `DELETE FROM ${LIST_TABLES.taskHistory.name} WHERE id <= (SELECT id FROM ${LIST_TABLES.taskHistory.name} ORDER BY id DESC LIMIT 1 OFFSET ?)`,
    [STATE_BOUNDS.taskHistory],
  );
  ctx.state = deepFreeze(withTaskRecord(ctx.state, JSON.parse(JSON.stringify(record)) as TaskRecord));
}
