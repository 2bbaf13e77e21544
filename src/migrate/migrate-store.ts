import { emptyOrchestratorState } from '../domain/orchestrator-state.js';
import { eachAppended, eachRun } from '../persistence/collections.js';
import type { StateStore } from '../store/types.js';
import { canonicalJson } from '../domain/canonical-json.js';
import { conflict } from '../domain/errors.js';
import { MIGRATION_COLLECTION_PREFIX, copiedDocumentCollections, digestStore, runContent, type Digests } from './read-collections.js';

export interface MigrationEvidence {
  from: string;
  to: string;
  startedAt: string;
  finishedAt: string | null;
  status: 'in-progress' | 'verified' | 'mismatch';
  resumed: boolean;
  /** Per collection: the source's and the target's count and content hash, and what this pass wrote. */
  collections: Record<string, { source: { count: number; sha256: string }; target: { count: number; sha256: string } | null; written: number }>;
  mismatches: string[];
}

const MARKER_COLLECTION = `${MIGRATION_COLLECTION_PREFIX}-runs`;

/** True when the target holds anything: a run, an appended record, a document, or a non-empty state. */
async function targetHoldsData(target: StateStore): Promise<boolean> {
  const counts = await target.countRuns(true);
  if (counts.total > 0) return true;
  for (const collection of ['telemetry', 'milestones'] as const) {
    if ((await target.listAppended(collection, { limit: 0 })).total > 0) return true;
  }
  if ((await copiedDocumentCollections(target)).length > 0) return true;
  return canonicalJson(await target.getState()) !== canonicalJson(emptyOrchestratorState());
}

/**
 * Copies every record of `source` into `target`, then proves it: counts and content hashes
 * per collection on both sides must be equal.
 *
 * - A target that holds data is refused (`conflict`) unless `force` is set, or it holds the marker of an
 *   unfinished migration from the same source (resume).
 * - Resumable: runs and documents are written by key (a run already there with the same content
 *   is skipped), append collections get only the records past the prefix the target already
 *   holds, and the state document is set whole. Running it again after a crash finishes the job.
 * - The source is only read.
 */
export async function migrateStore(
  source: StateStore,
  target: StateStore,
  options: { from: string; to: string; force: boolean; now: () => Date },
): Promise<MigrationEvidence> {
  const markerId = Buffer.from(options.from).toString('base64url');
  const marker = await target.getDoc(MARKER_COLLECTION, markerId);
  const resuming = marker !== null && marker.status === 'in-progress';
  if (!resuming && !options.force && (await targetHoldsData(target))) {
    throw conflict(`target ${options.to} is not empty; pass --force to write into it`);
  }
  const startedAt = options.now().toISOString();
  await target.putDoc(MARKER_COLLECTION, markerId, { from: options.from, status: 'in-progress', startedAt });

  const written: Record<string, number> = {};
  const wrote = (collection: string) => (written[collection] = (written[collection] ?? 0) + 1);

  // Runs, in admission order, so the target numbers them in the same order.
  written.runs = 0;
  for await (const run of eachRun(source)) {
    const content = canonicalJson(runContent(run));
    const result = await target.mutateRun(run.runId, (current) =>
      current !== null && canonicalJson(runContent(current)) === content ? null : { ...run },
    );
    if (result.changed) wrote('runs');
  }

  // Append collections: only what lies past the prefix the target already holds.
  for (const collection of ['telemetry', 'milestones'] as const) {
    written[collection] = 0;
    const already = (await target.listAppended(collection, { limit: 0 })).total;
    const { total } = await source.listAppended(collection, { limit: 0 });
    let index = 0;
    for await (const record of eachAppended(source, collection)) {
      if (index++ < already) continue;
      await target.append(collection, record, total + already);
      wrote(collection);
    }
  }

  const state = await source.getState();
  await target.mutateState(() => state);
  written.state = 1;

  for (const collection of await copiedDocumentCollections(source)) {
    written[`docs:${collection}`] = 0;
    for (const { id, doc } of await source.listDocEntries(collection)) {
      const existing = await target.getDoc(collection, id);
      if (existing !== null && canonicalJson(existing) === canonicalJson(doc)) continue;
      await target.putDoc(collection, id, doc);
      wrote(`docs:${collection}`);
    }
  }

  const evidence = compare(await digestStore(source), await digestStore(target), written);
  const result: MigrationEvidence = {
    from: options.from,
    to: options.to,
    startedAt,
    finishedAt: options.now().toISOString(),
    status: evidence.mismatches.length === 0 ? 'verified' : 'mismatch',
    resumed: resuming,
    ...evidence,
  };
  await target.putDoc(MARKER_COLLECTION, markerId, { from: options.from, status: result.status, startedAt, finishedAt: result.finishedAt, collections: result.collections });
  return result;
}

function compare(source: Digests, target: Digests, written: Record<string, number>): Pick<MigrationEvidence, 'collections' | 'mismatches'> {
  const collections: MigrationEvidence['collections'] = {};
  const mismatches: string[] = [];
  for (const name of new Set([...Object.keys(source), ...Object.keys(target)])) {
    const s = source[name] ?? { count: 0, sha256: '' };
    const t = target[name] ?? null;
    collections[name] = { source: s, target: t, written: written[name] ?? 0 };
    if (t === null || t.count !== s.count || t.sha256 !== s.sha256) {
      mismatches.push(`${name}: source ${s.count} records (${s.sha256.slice(0, 12)}), target ${t?.count ?? 0} (${t?.sha256.slice(0, 12) ?? 'none'})`);
    }
  }
  return { collections, mismatches };
}
