import type { StateStore } from '../store/types.js';
import { documentCollections, eachAppended, eachRun } from './collections.js';

export const EXPORT_FORMAT = 'orchestrator-state-export';
export const EXPORT_VERSION = 1;

/** One line of an export (NDJSON): a header, then one record per line, then the counts. */
export type ExportLine =
  | { kind: 'header'; format: typeof EXPORT_FORMAT; version: number; exportedAt: string; store: { kind: string; target: string } }
  | { kind: 'record'; collection: string; id?: string; record: unknown }
  | { kind: 'end'; counts: Record<string, number> };

/**
 * Every record the store holds, one at a time: runs and append collections page by page,
 * then the OrchestratorState document, then each keyed document collection. Nothing is
 * gathered whole, so a large state is streamed with bounded memory.
 */
export async function* exportRecords(store: StateStore, now: Date): AsyncGenerator<ExportLine> {
  const health = await store.health();
  yield { kind: 'header', format: EXPORT_FORMAT, version: EXPORT_VERSION, exportedAt: now.toISOString(), store: { kind: store.kind, target: health.target } };
  const counts: Record<string, number> = {};
  const count = (collection: string) => (counts[collection] = (counts[collection] ?? 0) + 1);
  for await (const run of eachRun(store)) {
    count('runs');
    yield { kind: 'record', collection: 'runs', id: run.runId, record: run };
  }
  for (const collection of ['telemetry', 'milestones'] as const) {
    counts[collection] = 0;
    for await (const record of eachAppended(store, collection)) {
      count(collection);
      yield { kind: 'record', collection, record };
    }
  }
  count('state');
  yield { kind: 'record', collection: 'state', record: await store.getState() };
  for (const collection of await documentCollections(store)) {
    for (const { id, doc } of await store.listDocEntries(collection)) {
      count(`docs:${collection}`);
      yield { kind: 'record', collection: `docs:${collection}`, id, record: doc };
    }
  }
  yield { kind: 'end', counts };
}

/** The export as NDJSON text chunks. */
export async function* exportNdjson(store: StateStore, now: Date): AsyncGenerator<string> {
  for await (const line of exportRecords(store, now)) yield `${JSON.stringify(line)}\n`;
}
