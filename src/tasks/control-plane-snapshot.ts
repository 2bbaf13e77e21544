import { dirname } from 'node:path';
import type { AgentRegistry } from '../agents/registry.js';
import type { Clock } from '../clock.js';
import type { AppConfig } from '../config/types.js';
import type { IncidentReadPort } from '../incidents/read-port.js';
import type { StateStore } from '../store/types.js';
import type { ControlPlaneSnapshot } from '../worker-sdk/control-plane.js';
import type { RunRecord } from '../domain/run-record.js';
import { settledByApproval } from '../domain/approval-refusal.js';

/** Runs the per-type figures are computed over: enough to see a trend, small enough to read per run. */
export const SNAPSHOT_RUN_WINDOW = 500;
export const SNAPSHOT_RECENT_RUNS = 50;
export const SNAPSHOT_APPROVAL_ITEMS = 20;
export const SNAPSHOT_MILESTONES = 20;
/** A pending-heavy queue must not make the window walk unbounded: at most this many store pages. */
const MAX_WINDOW_PAGES = 10;
const MAX_RESULT_KEYS = 40;
const MAX_ERROR_CHARS = 500;
const MAX_SUMMARY_CHARS = 300;

export interface ControlPlaneSnapshotDeps {
  store: StateStore;
  clock: Clock;
  config: AppConfig;
  agents: AgentRegistry;
  serviceStartedAt: Date;
  /** `file`, `sqlite` or `postgres`, as persistence health names it. */
  stateStoreKind: string;
  /** `memory` or `redis`. */
  coordinationKind: string;
  /** The incident ledger's read port; without one the snapshot lists no incidents. */
  incidents?: IncidentReadPort;
}

/** Open incidents as lanes see them: at most 50, most severe first, no history or notes. */
async function openIncidents(port: IncidentReadPort | undefined): Promise<ControlPlaneSnapshot['incidents']> {
  if (!port) return [];
  return (await port.listOpen(50)).map((i) => ({
    id: i.incidentId,
    classification: i.classification,
    severity: i.severity,
    status: i.status,
    title: clip(i.title, 200),
    firstSeenAt: i.firstSeenAt,
    lastSeenAt: i.lastSeenAt,
    acknowledged: i.acknowledged,
    owner: i.owner,
  }));
}

type WindowRun = ControlPlaneSnapshot['runs']['recent'][number];

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** Top-level keys of a result object: enough to tell what a lane answered, without its values. */
function resultKeysOf(result: unknown): string[] {
  if (typeof result !== 'object' || result === null || Array.isArray(result)) return [];
  return Object.keys(result).slice(0, MAX_RESULT_KEYS);
}

function durationOf(run: RunRecord): number | null {
  if (!run.startedAt || !run.finishedAt) return null;
  const ms = Date.parse(run.finishedAt) - Date.parse(run.startedAt);
  return Number.isFinite(ms) && ms >= 0 ? ms : null;
}

function windowRun(run: RunRecord): WindowRun {
  return {
    runId: run.runId,
    type: run.type,
    status: run.status,
    createdAt: run.createdAt,
    finishedAt: run.finishedAt,
    durationMs: durationOf(run),
    error: run.error === null ? null : clip(run.error, MAX_ERROR_CHARS),
    attempt: run.attempt,
    resultKeys: resultKeysOf(run.result),
  };
}

/**
 * The newest runs that have started (running, retrying or finished), newest first, up to the
 * window. Queued and held runs are left out: they are counted under `queue` and `approvals`.
 */
async function windowRuns(store: StateStore): Promise<WindowRun[]> {
  const picked: WindowRun[] = [];
  let afterSeq: number | undefined;
  for (let page = 0; page < MAX_WINDOW_PAGES && picked.length < SNAPSHOT_RUN_WINDOW; page += 1) {
    const { items } = await store.listRuns({
      includeInternal: true,
      order: 'newest',
      limit: SNAPSHOT_RUN_WINDOW,
      ...(afterSeq === undefined ? {} : { afterSeq }),
    });
    for (const run of items) {
      // A held run its approval settled never ran: it is no evidence about its lane.
      if (run.status === 'pending' || settledByApproval(run)) continue;
      picked.push(windowRun(run));
      if (picked.length === SNAPSHOT_RUN_WINDOW) break;
    }
    if (items.length < SNAPSHOT_RUN_WINDOW) break;
    afterSeq = items[items.length - 1]!.seq;
  }
  return picked;
}

/**
 * Per-type figures over the window. A `retrying` run counts as failed: its latest attempt
 * failed, and a type whose attempts keep failing must show it before the retries run out.
 * failureRate = failed / (success + failed), 0 when nothing has finished yet. A cancelled run
 * counts in `total` only: an operator's stop is neither a success nor a failure of the lane.
 */
function byType(runs: WindowRun[]): ControlPlaneSnapshot['runs']['byType'] {
  const figures = new Map<string, { type: string; total: number; success: number; failed: number; running: number }>();
  for (const run of runs) {
    const entry = figures.get(run.type) ?? { type: run.type, total: 0, success: 0, failed: 0, running: 0 };
    entry.total += 1;
    if (run.status === 'success') entry.success += 1;
    else if (run.status === 'failed' || run.status === 'retrying') entry.failed += 1;
    else if (run.status === 'running') entry.running += 1;
    figures.set(run.type, entry);
  }
  return [...figures.values()]
    .map((f) => {
      const finished = f.success + f.failed;
      return { ...f, failureRate: finished === 0 ? 0 : Math.round((f.failed / finished) * 1000) / 1000 };
    })
    .sort((a, b) => b.total - a.total || a.type.localeCompare(b.type));
}

async function approvals(store: StateStore): Promise<ControlPlaneSnapshot['approvals']> {
  const newest = await store.listRuns({ queueState: 'held', includeInternal: true, order: 'newest', limit: SNAPSHOT_APPROVAL_ITEMS });
  const oldest = await store.listRuns({ queueState: 'held', includeInternal: true, order: 'oldest', limit: 1 });
  const first = oldest.items[0];
  return {
    pendingCount: newest.total,
    oldestRequestedAt: first ? (first.approval.requestedAt ?? first.createdAt) : null,
    items: newest.items.map((run) => ({
      taskId: run.taskId,
      runId: run.runId,
      type: run.type,
      requestedAt: run.approval.requestedAt ?? run.createdAt,
    })),
  };
}

function text(value: unknown, fallback: string): string {
  return typeof value === 'string' ? value : fallback;
}

async function milestones(store: StateStore): Promise<ControlPlaneSnapshot['milestones']> {
  const { items } = await store.listAppended('milestones', { limit: SNAPSHOT_MILESTONES });
  return items.map((m) => ({
    milestoneId: text(m.milestoneId, ''),
    kind: text(m.kind, 'unknown'),
    status: text(m.status, 'unknown'),
    at: text(m.at, ''),
    summary: clip(text(m.summary, ''), MAX_SUMMARY_CHARS),
  }));
}

function agentsOf(registry: AgentRegistry, runs: WindowRun[]): ControlPlaneSnapshot['agents'] {
  return registry.list().map((agent) => {
    const lanes = new Set(agent.lanes);
    const own = runs.filter((run) => lanes.has(run.type));
    return {
      id: agent.id,
      lanes: [...agent.lanes],
      lifecycleMode: agent.lifecycleMode,
      serviceExpected: agent.serviceExpected,
      serviceUnitName: agent.serviceUnitName,
      entrypointAvailable: agent.entrypointPath !== null,
      allowedSkills: [...agent.allowedSkills],
      runCount: own.length,
      // Window runs are newest first, so the first one of the agent is its latest.
      lastRunAt: own[0]?.createdAt ?? null,
    };
  });
}

/**
 * The folder whose disk the state lives on: the JSON file's folder, or the SQLite file's folder.
 * A remote document database has no local folder.
 */
function stateDirectoryOf(stateTarget: string): string | null {
  if (stateTarget.startsWith('sql:')) return dirname(stateTarget.slice('sql:'.length));
  if (stateTarget.startsWith('docdb:') || stateTarget === 'postgres') return null;
  return dirname(stateTarget);
}

/**
 * Builds the bounded control-plane view handed to lanes that judge the orchestrator itself
 * (see ControlPlaneSnapshot). It reads counts and bounded lists from the store and never copies
 * a payload or a result value. Incidents come from the ledger's read port.
 */
export function createControlPlaneSnapshot(deps: ControlPlaneSnapshotDeps): () => Promise<ControlPlaneSnapshot> {
  return async () => {
    const now = deps.clock.now();
    const counts = await deps.store.countRuns(true);
    const runs = await windowRuns(deps.store);
    return {
      generatedAt: now.toISOString(),
      service: {
        startedAt: deps.serviceStartedAt.toISOString(),
        uptimeSeconds: Math.max(0, Math.floor((now.getTime() - deps.serviceStartedAt.getTime()) / 1000)),
        pid: process.pid,
        stateStore: deps.stateStoreKind,
        coordination: deps.coordinationKind,
        concurrency: deps.config.concurrency,
        stateDirectory: stateDirectoryOf(deps.config.stateTarget),
      },
      queue: {
        queued: counts.ready,
        processing: counts.byStatus.running,
        held: counts.held,
        retrying: counts.byStatus.retrying,
      },
      approvals: await approvals(deps.store),
      runs: { window: runs.length, byType: byType(runs), recent: runs.slice(0, SNAPSHOT_RECENT_RUNS) },
      agents: agentsOf(deps.agents, runs),
      incidents: await openIncidents(deps.incidents),
      milestones: await milestones(deps.store),
    };
  };
}
