import type Database from 'better-sqlite3';
import type { CommunityRecord, DeploymentRecord, RSSRecord, TaskRecord } from '../../domain/orchestrator-state.js';
import { statement } from './statements.js';
import type { WriteContext } from './write-context.js';

export type SqlValue = string | number | null;

/**
 * A table holding one kind of list item, one row per item in list order (autoincrement `id`).
 * `columns` maps each column to how it is taken from the item: the typed columns make the
 * main fields queryable, the `record` column keeps the full item so reading it back is lossless.
 */
export interface ItemTable<T> {
  name: string;
  columns: Record<string, (item: T) => SqlValue>;
  fromRow(row: Record<string, unknown>): T;
}

const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);
const num = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : null);
const flag = (value: unknown): number | null => (typeof value === 'boolean' ? Number(value) : null);
const firstText = (item: Record<string, unknown>, fields: string[]): string | null =>
  fields.map((field) => text(item[field])).find((value) => value !== null) ?? null;

function jsonItemTable<T extends object>(name: string, typed: Record<string, (item: T) => SqlValue>): ItemTable<T> {
  return {
    name,
    columns: { ...typed, record: (item) => JSON.stringify(item) },
    fromRow: (row) => JSON.parse(row.record as string) as T,
  };
}

export const TASK_HISTORY = jsonItemTable<TaskRecord>('task_history', {
  type: (r) => text(r.type),
  status: (r) => text(r.status),
  timestamp: (r) => text(r.timestamp),
  duration_ms: (r) => num(r.durationMs),
  error: (r) => text(r.error),
});

export const COMMUNITY_RESPONSES = jsonItemTable<CommunityRecord>('community_responses', {
  timestamp: (r) => text(r.timestamp),
  post_id: (r) => text(r.postId),
  post_title: (r) => text(r.postTitle),
  subcommunity: (r) => text(r.subcommunity),
  confidence: (r) => num(r.confidence),
  approved: (r) => flag(r.approved),
  posted: (r) => text(r.posted),
});

export const RSS_DRAFTS = jsonItemTable<RSSRecord>('rss_drafts', {
  timestamp: (r) => text(r.timestamp),
  feed_url: (r) => text(r.feedUrl),
  item_title: (r) => text(r.itemTitle),
  item_url: (r) => text(r.itemUrl),
  published_at: (r) => text(r.publishedAt),
  relevance_score: (r) => num(r.relevanceScore),
  urgency: (r) => text(r.urgency),
});

export const DEPLOYED_AGENTS = jsonItemTable<DeploymentRecord>('deployed_agents', {
  timestamp: (r) => text(r.timestamp),
  agent_name: (r) => text(r.agentName),
  deploy_path: (r) => text(r.deployPath),
});

/** docsIndexed holds plain path strings: the path is the whole record. */
export const DOCS_INDEXED: ItemTable<string> = {
  name: 'docs_indexed',
  columns: { path: (path) => path },
  fromRow: (row) => row.path as string,
};

/**
 * Telemetry and milestone records have no fixed schema in the contract; the typed columns pick
 * the conventional fields when present (`kind` from event/type/kind/name, `timestamp` from
 * timestamp/at/createdAt) and are null otherwise.
 */
function appendedTable(name: string): ItemTable<Record<string, unknown>> {
  return jsonItemTable<Record<string, unknown>>(name, {
    kind: (r) => firstText(r, ['event', 'type', 'kind', 'name']),
    timestamp: (r) => firstText(r, ['timestamp', 'at', 'createdAt']),
  });
}

export const TELEMETRY = appendedTable('telemetry');
export const MILESTONES = appendedTable('milestones');

/** The statements inserting items in order, added to the write's batch. */
export function insertItems<T>(ctx: Pick<WriteContext, 'run'>, table: ItemTable<T>, items: readonly T[]): void {
  const names = Object.keys(table.columns);
  const sql = `INSERT INTO ${table.name} (${names.join(', ')}) VALUES (${names.map(() => '?').join(', ')})`;
  const extractors = Object.values(table.columns);
  for (const item of items) ctx.run(sql, extractors.map((extract) => extract(item)));
}

export function deleteAllItems(ctx: Pick<WriteContext, 'run'>, table: Pick<ItemTable<unknown>, 'name'>): void {
  ctx.run(`DELETE FROM ${table.name}`, []);
}

/** Items in list order (oldest first), or newest first with `newestFirst`. */
export function readItems<T>(
  db: Database.Database,
  table: ItemTable<T>,
  page: { newestFirst?: boolean; limit?: number; offset?: number } = {},
): T[] {
  const order = page.newestFirst === true ? 'DESC' : 'ASC';
  const rows = statement(db, `SELECT * FROM ${table.name} ORDER BY id ${order} LIMIT ? OFFSET ?`).all(
    page.limit ?? -1,
    page.offset ?? 0,
  ) as Record<string, unknown>[];
  return rows.map((row) => table.fromRow(row));
}

export function countItems(db: Database.Database, table: Pick<ItemTable<unknown>, 'name'>): number {
  return (statement(db, `SELECT COUNT(*) AS n FROM ${table.name}`).get() as { n: number }).n;
}
