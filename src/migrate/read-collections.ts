import { documentCollections, eachAppended, eachRun } from '../persistence/collections.js';
import type { StateStore } from '../store/types.js';
import type { RunRecord } from '../domain/run-record.js';
import { CollectionDigest } from './content-hash.js';

/** Keyed-document collections the migration writes for its own bookkeeping; never copied or compared. */
export const MIGRATION_COLLECTION_PREFIX = '_migration';

export type Digests = Record<string, { count: number; sha256: string }>;

/**
 * A run as compared between stores: `seq` is the store's own admission number (a target
 * numbers the runs again, in the same order), and each event's `tx` its own write stamp (a
 * target stamps the events it is given again: stamps of one store mean nothing in another), so
 * both are left out of the content.
 */
export function runContent(run: RunRecord): Omit<RunRecord, 'seq'> {
  const { seq: _seq, ...content } = run;
  return { ...content, events: run.events.map(({ tx: _tx, ...event }) => event) };
}

export async function copiedDocumentCollections(store: StateStore): Promise<string[]> {
  return (await documentCollections(store)).filter((c) => !c.startsWith(MIGRATION_COLLECTION_PREFIX));
}

/**
 * Count and content hash of every collection of a store: runs in admission order, append
 * collections oldest first, the OrchestratorState document, each keyed-document collection by id.
 * Read page by page, so a large store is hashed with bounded memory.
 */
export async function digestStore(store: StateStore): Promise<Digests> {
  const digests: Digests = {};
  const runs = new CollectionDigest();
  for await (const run of eachRun(store)) runs.add(runContent(run));
  digests.runs = runs.result();
  for (const collection of ['telemetry', 'milestones'] as const) {
    const digest = new CollectionDigest();
    for await (const record of eachAppended(store, collection)) digest.add(record);
    digests[collection] = digest.result();
  }
  const state = new CollectionDigest();
  state.add(await store.getState());
  digests.state = state.result();
  for (const collection of await copiedDocumentCollections(store)) {
    const digest = new CollectionDigest();
    for (const entry of await store.listDocEntries(collection)) digest.add(entry);
    digests[`docs:${collection}`] = digest.result();
  }
  return digests;
}
