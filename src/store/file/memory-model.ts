import { placementOf, type RunRecord } from '../../domain/run-record.js';
import { agingFrom, fairnessKey, isDue, noteCandidateReads, type QueueCandidate } from '../fair-claims.js';
import { foldQueueGroups, type QueueGroup, type QueueGroupRow, type RunGroupCount, type RunStart } from '../limit-buckets.js';
import { emptyOrchestratorState, type OrchestratorState } from '../../domain/orchestrator-state.js';
import type { AppendCollection } from '../types.js';
import type { JournalEntry } from './journal-entry.js';
import { ReadyIndex } from './ready-index.js';
import { NotBeforeIndex } from './not-before-index.js';
import { BoundedLog } from './bounded-log.js';
import { SNAPSHOT_SCHEMA_VERSION, type SnapshotCapture, type SnapshotDocument } from './snapshot.js';
import { deepFreeze } from '../deep-freeze.js';
import { withTaskRecord } from '../../domain/orchestrator-state.js';
import { lastEventTx } from '../run-event-stamps.js';
import { withFlowStepStatus } from '../run-rules.js';
import { RunEventIndex } from './event-index.js';

/**
 * Everything the file driver stores, held in memory: the snapshot plus every journal entry
 * applied in seq order. Live writes and replay at open go through the same `apply`, so what a
 * reader sees before a restart is exactly what replay rebuilds after it.
 *
 * Invariant: `runs` iterates in seq order. A snapshot is loaded sorted; a new run always gets
 * the highest seq so far (it is the newest journal entry) and Map.set on an existing key keeps
 * its position.
 */
export class MemoryModel {
  lastSeq: number;
  state: OrchestratorState;
  private readonly runs = new Map<string, RunRecord>();
  /**
   * The JSON text of each run written since the store opened (its journal line's record), kept so
   * a compaction joins these strings instead of serializing every run again: at the default
   * thresholds a compaction rewrites all runs after about as many journal lines as there are
   * runs, so re-serializing them cost as much as the writes themselves. Runs loaded from the
   * snapshot or replayed have none until their next write; the compaction serializes those.
   */
  private readonly runTexts = new Map<string, string>();
  private readonly ready = new ReadyIndex();
  /**
   * The ready runs again, by type, then one queue per (concurrency key, priority): a claim reads
   * only the heads of the types it may take. Runs with a not-before time are in `notBeforeReady` instead.
   */
  private readonly readyGroups = new Map<string, Map<string, ReadyIndex>>();
  /** Ready runs with a not-before time (trailing debounces waiting for their window), by that time. */
  private readonly notBeforeReady = new NotBeforeIndex();
  /** Per fairness key, the start of its latest run (claims take turns by it: src/store/fair-claims.ts). */
  private readonly lastStartByKey = new Map<string, string>();
  private readonly runningByType = new Map<string, number>();
  /** Running runs by (type, fairness key): what limit buckets count. */
  private readonly runningGroups = new Map<string, RunGroupCount>();
  private readonly collections: Record<AppendCollection, BoundedLog<Record<string, unknown>>>;
  private readonly docs = new Map<string, Map<string, Record<string, unknown>>>();
  /** Runs by the stamp of their last write that appended events (the change feed's lookup). */
  readonly eventIndex = new RunEventIndex();
  /** The run ids of each flow (`flowStep.flowId`): a flow's runs are read without a walk of every run. */
  private readonly flowRuns = new Map<string, Set<string>>();

  constructor(snapshot: SnapshotDocument | null) {
    this.lastSeq = snapshot?.meta.lastSeq ?? 0;
    // Frozen like the runs: getState hands it out without a copy.
    this.state = deepFreeze(snapshot === null ? emptyOrchestratorState() : stateOf(snapshot));
    this.collections = {
      telemetry: new BoundedLog(snapshot?.collections.telemetry),
      milestones: new BoundedLog(snapshot?.collections.milestones),
    };
    // Records stored before flow steps had status words of their own are read in today's words.
    const runs = (snapshot?.runs ?? []).map(withFlowStepStatus).sort((a, b) => a.seq - b.seq);
    for (const run of runs) this.putRun(run);
    // Loaded in admission order; the index wants stamp order.
    this.eventIndex.rebuild(this.runStamps());
    for (const [collection, byId] of Object.entries(snapshot?.docs ?? {})) {
      this.docs.set(collection, new Map(Object.entries(byId)));
    }
  }

  /** `runText`, for a run entry: `JSON.stringify(entry.record)`, the text its journal line holds. */
  apply(entry: JournalEntry, runText?: string): void {
    switch (entry.op) {
      case 'run': {
        const record = withFlowStepStatus(entry.record);
        this.putRun(record);
        // An upgraded record (a journal line written before flow step statuses) no longer matches its line.
        if (runText === undefined || record !== entry.record) this.runTexts.delete(record.runId);
        else this.runTexts.set(record.runId, runText);
        break;
      }
      case 'run-delete':
        this.deleteRun(entry.runId);
        break;
      case 'state':
        this.state = deepFreeze(entry.state);
        break;
      case 'task':
        // Only the new parts get frozen: the rest is shared with the previous, frozen state.
        this.state = deepFreeze(withTaskRecord(this.state, entry.record));
        break;
      case 'append':
        this.appendRecord(entry.collection, entry.record, entry.keep);
        break;
      case 'doc':
        this.putDoc(entry.collection, entry.id, entry.doc);
        break;
      case 'doc-delete':
        this.deleteDoc(entry.collection, entry.id);
        break;
    }
    this.lastSeq = entry.seq;
  }

  getRun(runId: string): RunRecord | undefined {
    return this.runs.get(runId);
  }

  /** Runs in seq (admission) order. */
  allRuns(): IterableIterator<RunRecord> {
    return this.runs.values();
  }

  /** The runs of one flow (its step runs and their approval replays), in seq order. */
  flowRunsOf(flowId: string): RunRecord[] {
    const ids = this.flowRuns.get(flowId);
    if (ids === undefined) return [];
    const runs: RunRecord[] = [];
    for (const runId of ids) {
      const run = this.runs.get(runId);
      if (run !== undefined) runs.push(run);
    }
    return runs.sort((a, b) => a.seq - b.seq);
  }

  get runCount(): number {
    return this.runs.size;
  }

  get readyCount(): number {
    return this.ready.size;
  }

  runningCounts(): ReadonlyMap<string, number> {
    return this.runningByType;
  }

  /**
   * The oldest `perGroup` ready runs of each (concurrency key, priority, type) group whose type is
   * not in `blocked`, and the ready runs whose not-before time has come: every run a claim of
   * `perGroup` runs could take. Each group gives its head only (a group of 10,000 runs costs what
   * `perGroup` do); runs with a not-before time are kept apart and read while they wait.
   */
  readyCandidates(blocked: ReadonlySet<string>, perGroup: number, nowMs: number): QueueCandidate[] {
    const candidates: QueueCandidate[] = [];
    let read = 0;
    for (const [type, groups] of this.readyGroups) {
      if (blocked.has(type)) continue;
      for (const group of groups.values()) {
        let taken = 0;
        for (const runId of group.inOrder()) {
          const run = this.runs.get(runId);
          read++;
          if (run === undefined) continue;
          candidates.push(candidateOf(run));
          if (++taken >= perGroup) break;
        }
      }
    }
    // Only the due ones are read: the index stops at the first run still waiting.
    for (const runId of this.notBeforeReady.dueBy(nowMs)) {
      const run = this.runs.get(runId);
      read++;
      if (run !== undefined && !blocked.has(run.type)) candidates.push(candidateOf(run));
    }
    noteCandidateReads(read);
    return candidates;
  }

  /** What the limits count (src/store/limit-buckets.ts): running runs by (type, key), and the starts since `sinceMs` (none when null). */
  limitUsage(sinceMs: number | null): { running: RunGroupCount[]; started: RunStart[] } {
    const running = [...this.runningGroups.values()].map((group) => ({ ...group }));
    const started: RunStart[] = [];
    if (sinceMs !== null) {
      // Every run is read: rate buckets on the file store cost a pass over its runs per claim (docs/queue.md).
      for (const run of this.runs.values()) {
        const atMs = run.startedAt === null ? Number.NaN : Date.parse(run.startedAt);
        if (atMs >= sinceMs) started.push({ type: run.type, key: fairnessKey(run), atMs });
      }
    }
    return { running, started };
  }

  /** Ready and running runs by (type, key) with the oldest ready admission of each, ready runs by priority too. */
  queueGroups(nowMs: number): QueueGroup[] {
    const rows: QueueGroupRow[] = [...this.runningGroups.values()].map((running) => ({ type: running.type, key: running.key, priority: 0, ready: 0, running: running.n, oldestReadyAt: null, notBefore: 0 }));
    for (const runId of this.ready.inOrder()) {
      const run = this.runs.get(runId);
      if (run === undefined) continue;
      const notBefore = isDue(run, nowMs) ? 0 : 1;
      rows.push({ type: run.type, key: fairnessKey(run), priority: placementOf(run).priority, ready: 1, running: 0, oldestReadyAt: run.createdAt, notBefore });
    }
    return foldQueueGroups(rows);
  }

  /** When the latest run of a fairness key started; null: none of its runs has. */
  lastStartOf(key: string): string | null {
    return this.lastStartByKey.get(key) ?? null;
  }

  appended(collection: AppendCollection): Pick<BoundedLog<Record<string, unknown>>, 'length' | 'slice'> {
    return this.collections[collection];
  }

  getDoc(collection: string, id: string): Record<string, unknown> | undefined {
    return this.docs.get(collection)?.get(id);
  }

  docsIn(collection: string): Record<string, unknown>[] {
    return this.docEntriesIn(collection).map(([, doc]) => doc);
  }

  docEntriesIn(collection: string): Array<[string, Record<string, unknown>]> {
    const byId = this.docs.get(collection);
    if (byId === undefined) return [];
    // Byte order of the UTF-8 ids, the order SQLite's default collation gives, so drivers agree.
    return [...byId.entries()].sort(([a], [b]) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  }

  /** Row counts for health(). */
  sizes(): Record<string, number> {
    const sizes: Record<string, number> = {
      runs: this.runs.size,
      taskHistory: this.state.taskHistory.length,
      communityResponses: this.state.communityResponses.length,
      rssDrafts: this.state.rssDrafts.length,
      deployedAgents: this.state.deployedAgents.length,
      docsIndexed: this.state.docsIndexed.length,
      telemetry: this.collections.telemetry.length,
      milestones: this.collections.milestones.length,
    };
    for (const [collection, byId] of this.docs) sizes[`docs:${collection}`] = byId.size;
    return sizes;
  }

  /**
   * The snapshot document for the content at `lastSeq`. It can be serialized later, while writes
   * go on: runs and docs are replaced (never changed) by writes and runs are deep-frozen, the
   * state document is replaced as a whole, and the containers the model changes in place (the
   * run map, the append arrays, the doc maps) are copied here.
   */
  toSnapshot(): SnapshotCapture {
    const runs = [...this.runs.values()];
    const document: SnapshotDocument = {
      ...this.state,
      runs,
      collections: { telemetry: this.collections.telemetry.toArray(), milestones: this.collections.milestones.toArray() },
      docs: Object.fromEntries([...this.docs].map(([collection, byId]) => [collection, Object.fromEntries(byId)])),
      meta: { schemaVersion: SNAPSHOT_SCHEMA_VERSION, lastSeq: this.lastSeq },
    };
    return { document, runTexts: runs.map((run) => this.runTexts.get(run.runId)) };
  }

  /** Each run with the stamp of its last write that appended events. */
  *runStamps(): Generator<[string, number]> {
    for (const run of this.runs.values()) yield [run.runId, lastEventTx(run)];
  }

  private putRun(run: RunRecord): void {
    const previous = this.runs.get(run.runId);
    if (previous !== undefined) this.unindex(previous);
    this.runs.set(run.runId, deepFreeze(run));
    const tx = lastEventTx(run);
    if (tx > (previous === undefined ? 0 : lastEventTx(previous))) {
      this.eventIndex.note(run.runId, tx);
      this.eventIndex.compactIfStale(this.runs.size, () => this.runStamps());
    }
    if (run.queueState === 'ready') {
      this.ready.add(run.seq, run.runId);
      if (run.notBefore != null) this.notBeforeReady.add({ runId: run.runId, seq: run.seq, notBefore: run.notBefore });
      else {
        let groups = this.readyGroups.get(run.type);
        if (groups === undefined) this.readyGroups.set(run.type, (groups = new Map()));
        const group = readyGroupOf(run);
        let index = groups.get(group);
        if (index === undefined) groups.set(group, (index = new ReadyIndex()));
        index.add(run.seq, run.runId);
      }
    }
    const flowId = run.flowStep?.flowId;
    if (flowId !== undefined) {
      let ids = this.flowRuns.get(flowId);
      if (ids === undefined) this.flowRuns.set(flowId, (ids = new Set()));
      ids.add(run.runId);
    }
    if (run.startedAt !== null) {
      const key = fairnessKey(run);
      const last = this.lastStartByKey.get(key);
      if (last === undefined || run.startedAt > last) this.lastStartByKey.set(key, run.startedAt);
    }
    if (run.status === 'running') {
      this.runningByType.set(run.type, (this.runningByType.get(run.type) ?? 0) + 1);
      this.countRunning(run, 1);
    }
  }

  private deleteRun(runId: string): void {
    const previous = this.runs.get(runId);
    if (previous === undefined) return;
    this.unindex(previous);
    this.runs.delete(runId);
    this.runTexts.delete(runId);
    const flowId = previous.flowStep?.flowId;
    const ids = flowId === undefined ? undefined : this.flowRuns.get(flowId);
    ids?.delete(runId);
    if (ids?.size === 0) this.flowRuns.delete(flowId!);
  }

  private unindex(run: RunRecord): void {
    if (run.queueState === 'ready') {
      this.ready.remove(run.seq);
      if (run.notBefore != null) this.notBeforeReady.remove({ seq: run.seq, notBefore: run.notBefore });
      const groups = this.readyGroups.get(run.type);
      const group = readyGroupOf(run);
      const index = groups?.get(group);
      index?.remove(run.seq);
      if (index?.size === 0) groups!.delete(group);
      if (groups?.size === 0) this.readyGroups.delete(run.type);
    }
    if (run.status === 'running') {
      const left = (this.runningByType.get(run.type) ?? 1) - 1;
      if (left > 0) this.runningByType.set(run.type, left);
      else this.runningByType.delete(run.type);
      this.countRunning(run, -1);
    }
  }

  private countRunning(run: RunRecord, delta: number): void {
    const key = fairnessKey(run);
    const id = `${run.type}\u0000${key}`;
    const n = (this.runningGroups.get(id)?.n ?? 0) + delta;
    if (n > 0) this.runningGroups.set(id, { type: run.type, key, n });
    else this.runningGroups.delete(id);
  }

  private appendRecord(collection: AppendCollection, record: Record<string, unknown>, keep: number): void {
    this.collections[collection].push(record, keep);
  }

  private putDoc(collection: string, id: string, doc: Record<string, unknown>): void {
    let byId = this.docs.get(collection);
    if (byId === undefined) {
      byId = new Map();
      this.docs.set(collection, byId);
    }
    byId.set(id, doc);
  }

  /** An emptied collection goes with its last document, as the SQL drivers count none for it. */
  private deleteDoc(collection: string, id: string): void {
    const byId = this.docs.get(collection);
    if (byId === undefined) return;
    byId.delete(id);
    if (byId.size === 0) this.docs.delete(collection);
  }
}

function stateOf(snapshot: SnapshotDocument): OrchestratorState {
  const state: OrchestratorState = {
    lastStartedAt: snapshot.lastStartedAt,
    tasksProcessed: snapshot.tasksProcessed,
    taskHistory: snapshot.taskHistory,
    docsIndexed: snapshot.docsIndexed,
    communityResponses: snapshot.communityResponses,
    rssDrafts: snapshot.rssDrafts,
    deployedAgents: snapshot.deployedAgents,
  };
  if (snapshot.notes !== undefined) state.notes = snapshot.notes;
  return state;
}

/** The ready queue a run joins within its type's: one per concurrency key and priority. */
function readyGroupOf(run: RunRecord): string {
  return `${placementOf(run).priority}:${fairnessKey(run)}`;
}

function candidateOf(run: RunRecord): QueueCandidate {
  return { runId: run.runId, seq: run.seq, type: run.type, key: fairnessKey(run), priority: placementOf(run).priority, createdAt: agingFrom(run) };
}
