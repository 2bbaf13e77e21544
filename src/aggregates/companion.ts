import type { IncidentDigest, IncidentReadPort, IncidentRollup } from '../incidents/read-port.js';
import type { StateStore } from '../store/types.js';
import type { CatalogView } from '../runtime/catalog-view.js';
import type { RunRecord } from '../domain/run-record.js';
import type { ControlPlaneSnapshot } from '../worker-sdk/control-plane.js';
import { clipText, fitBrief } from './bounded-brief.js';
import { readPort, type BusinessReadPort, type ProofReadPort } from './read-ports.js';
import { controlPlaneBriefType } from '../lanes/control-plane-brief/definition.js';
import { incidentTriageType } from '../lanes/incident-triage/definition.js';

/** Item caps before any byte pressure: a brief names the first few, not all. */
export const COMPANION_LIMITS = {
  failingLanes: 5,
  briefSections: 6,
  nextActions: 6,
  openIncidents: 20,
  triageQueue: 10,
  tasks: 40,
  runs: 20,
  approvals: 20,
} as const;

type Posture = 'steady' | 'attention' | 'critical';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const finishedAt = (run: RunRecord) => run.finishedAt ?? run.updatedAt;

/** The newest successful run of a lane: the brief a companion shows is the last one that completed. */
export async function latestSuccess(store: StateStore, type: string): Promise<RunRecord | null> {
  const { items } = await store.listRuns({ type, status: 'success', limit: 1, includeInternal: true });
  return items[0] ?? null;
}

// ---------------------------------------------------------------- overview

/** Live posture from the snapshot: the same thresholds a reader would apply at a glance. */
export function livePosture(snapshot: ControlPlaneSnapshot, incidents: IncidentRollup): Posture {
  if (incidents.overallStatus === 'critical') return 'critical';
  const failing = snapshot.runs.byType.some((t) => t.failed >= 3 && t.failureRate >= 0.5);
  if (incidents.openCount > 0 || snapshot.approvals.pendingCount > 0 || snapshot.queue.retrying > 0 || failing) return 'attention';
  return 'steady';
}

/** The newest control-plane-brief result as the overview shows it; null when none succeeded. */
export function briefOf(run: RunRecord | null) {
  if (!run || !isObject(run.result)) return null;
  const result = run.result;
  const brief = isObject(result.brief) ? result.brief : {};
  const sections = isObject(brief.sections) ? brief.sections : {};
  return {
    latestBrief: {
      runId: run.runId,
      finishedAt: finishedAt(run),
      posture: str(result.posture),
      headline: clipText(str(brief.headline) ?? run.operatorSummary ?? ''),
      snapshotAt: str(brief.snapshotAt),
      briefBytes: num(result.briefBytes),
      truncated: result.truncated === true,
    },
    briefSections: Object.entries(sections).map(([name, s]) => {
      const section = isObject(s) ? s : {};
      const facts = Array.isArray(section.facts) ? section.facts.filter((f): f is string => typeof f === 'string') : [];
      return { name, status: str(section.status), facts: facts.slice(0, 3).map((f) => clipText(f)) };
    }),
    nextActions: (Array.isArray(result.recommendedNextActions) ? result.recommendedNextActions : [])
      .filter((a): a is string => typeof a === 'string')
      .map((a) => clipText(a)),
  };
}

export function composeCompanionOverview(input: {
  now: Date;
  snapshot: ControlPlaneSnapshot;
  incidents: IncidentRollup;
  briefRun: RunRecord | null;
  proof: Awaited<ReturnType<typeof readProof>>;
  business: Awaited<ReturnType<typeof readBusiness>>;
}) {
  const { snapshot } = input;
  const brief = briefOf(input.briefRun);
  const expected = snapshot.agents.filter((a) => a.serviceExpected);
  const latestMilestone = snapshot.milestones[0] ?? null;
  return fitBrief(
    {
      generatedAt: input.now.toISOString(),
      posture: livePosture(snapshot, input.incidents),
      queue: { ...snapshot.queue },
      approvals: { pendingCount: snapshot.approvals.pendingCount, oldestRequestedAt: snapshot.approvals.oldestRequestedAt },
      incidents: {
        overallStatus: input.incidents.overallStatus,
        openCount: input.incidents.openCount,
        activeCount: input.incidents.activeCount,
        criticalCount: input.incidents.bySeverity.critical,
      },
      services: {
        declaredAgents: snapshot.agents.length,
        serviceExpectedCount: expected.length,
        serviceExpectedWithoutEntrypoint: expected.filter((a) => !a.entrypointAvailable).map((a) => a.id),
      },
      proof: { ...input.proof, latestMilestone: latestMilestone && { kind: latestMilestone.kind, status: latestMilestone.status, at: latestMilestone.at } },
      business: input.business,
      runWindow: snapshot.runs.window,
      failingLanes: snapshot.runs.byType
        .filter((t) => t.failed > 0)
        .sort((a, b) => b.failureRate - a.failureRate || b.failed - a.failed)
        .map((t) => ({ type: t.type, failed: t.failed, total: t.total, failureRate: t.failureRate })),
      latestBrief: brief?.latestBrief ?? null,
      briefSections: brief?.briefSections ?? [],
      nextActions: brief?.nextActions ?? [],
    },
    { failingLanes: COMPANION_LIMITS.failingLanes, briefSections: COMPANION_LIMITS.briefSections, nextActions: COMPANION_LIMITS.nextActions },
  );
}

const PROOF_KEYS = ['itemCount', 'atRiskCount', 'deadLetterCount', 'latestAt'] as const;
const BUSINESS_KEYS = ['schedulerMode', 'activeCycleId', 'lastCycleStatus', 'nextRunAt'] as const;
export const readProof = (port: ProofReadPort | undefined) => readPort(PROOF_KEYS, 'proof surface', port && (() => port.summary()));
export const readBusiness = (port: BusinessReadPort | undefined) => readPort(BUSINESS_KEYS, 'business planner', port && (() => port.summary()));

// ---------------------------------------------------------------- incidents

interface TriageItem {
  rank: number | null;
  title: string;
  severity: string | null;
  classification: string | null;
  score: number | null;
  source: string | null;
  recommendedAction: string | null;
}

function triageQueueOf(result: Record<string, unknown>): TriageItem[] {
  const queue = Array.isArray(result.queue) ? result.queue : [];
  return queue.filter(isObject).map((e) => ({
    rank: num(e.rank),
    title: clipText(str(e.title) ?? ''),
    severity: str(e.severity),
    classification: str(e.classification),
    score: num(e.score),
    source: str(e.source),
    recommendedAction: str(e.recommendedAction) && clipText(str(e.recommendedAction)!),
  }));
}

/**
 * The incident brief: the ledger's open incidents (IncidentReadPort) fused with the newest
 * incident-triage ranking. A ranked ledger item is matched to an open incident by classification
 * and title; `stillOpen: false` says it was resolved since the triage ran. Derived signals (run
 * history, approvals, ...) have no ledger incident and carry `stillOpen: null`.
 */
export function composeCompanionIncidents(input: { now: Date; rollup: IncidentRollup; open: IncidentDigest[]; triageRun: RunRecord | null }) {
  const result = input.triageRun && isObject(input.triageRun.result) ? input.triageRun.result : null;
  const key = (classification: string | null, title: string) => `${classification ?? ''}\u0000${title}`;
  const openByKey = new Map(input.open.map((i) => [key(i.classification, clipText(i.title)), i]));
  const queue = result ? triageQueueOf(result) : [];
  const triaged = new Set<string>();
  const triageQueue = queue.map((item) => {
    if (item.source !== 'incident-ledger') return { ...item, incidentId: null, stillOpen: null };
    const match = openByKey.get(key(item.classification, item.title));
    if (match) triaged.add(match.incidentId);
    return { ...item, incidentId: match?.incidentId ?? null, stillOpen: match !== undefined };
  });
  const counts = result && isObject(result.counts) ? result.counts : null;
  return fitBrief(
    {
      generatedAt: input.now.toISOString(),
      overallStatus: input.rollup.overallStatus,
      openCount: input.rollup.openCount,
      activeCount: input.rollup.activeCount,
      watchingCount: input.rollup.watchingCount,
      bySeverity: input.rollup.bySeverity,
      untriagedOpenCount: input.open.filter((i) => !triaged.has(i.incidentId)).length,
      triage: input.triageRun
        ? {
            runId: input.triageRun.runId,
            finishedAt: finishedAt(input.triageRun),
            snapshotAt: result ? str(result.snapshotAt) : null,
            total: counts ? num(counts.total) : null,
            critical: counts ? num(counts.critical) : null,
            warning: counts ? num(counts.warning) : null,
          }
        : null,
      open: input.open.map((i) => ({
        incidentId: i.incidentId,
        title: clipText(i.title),
        classification: i.classification,
        severity: i.severity,
        status: i.status,
        lastSeenAt: i.lastSeenAt,
        owner: i.owner,
        acknowledged: i.acknowledged,
        remediationStatus: i.remediationStatus,
      })),
      triageQueue,
    },
    { open: COMPANION_LIMITS.openIncidents, triageQueue: COMPANION_LIMITS.triageQueue },
  );
}

// ---------------------------------------------------------------- catalog, runs, approvals

export function composeCompanionCatalog(now: Date, catalog: Awaited<ReturnType<CatalogView['publicEntries']>>) {
  return fitBrief(
    {
      generatedAt: now.toISOString(),
      count: catalog.count,
      tasks: catalog.tasks.map((t) => ({
        type: t.type,
        label: t.label,
        approvalGated: t.approvalGated,
        operationalStatus: t.operationalStatus,
        dependencyClass: t.dependencyClass,
        totalRuns: t.telemetryOverlay.totalRuns,
        successRate: t.telemetryOverlay.successRate,
      })),
    },
    { tasks: COMPANION_LIMITS.tasks },
  );
}

export function composeCompanionRuns(now: Date, runs: { items: RunRecord[]; total: number }, byStatus: Record<string, number>) {
  return fitBrief(
    {
      generatedAt: now.toISOString(),
      total: runs.total,
      byStatus,
      runs: runs.items.map((r) => ({
        runId: r.runId,
        type: r.type,
        status: r.status,
        createdAt: r.createdAt,
        finishedAt: r.finishedAt,
        summary: r.error !== null ? clipText(r.error) : r.operatorSummary !== null ? clipText(r.operatorSummary) : null,
      })),
    },
    { runs: COMPANION_LIMITS.runs },
  );
}

export interface PendingApprovalLike {
  taskId: string;
  runId: string;
  type: string;
  requestedAt: string | null;
  impact: { riskLevel: string; approvalReason: string } | null;
}

export function composeCompanionApprovals(now: Date, pending: { count: number; pending: PendingApprovalLike[] }) {
  const oldest = pending.pending.map((p) => p.requestedAt).filter((t): t is string => t !== null).sort()[0] ?? null;
  return fitBrief(
    {
      generatedAt: now.toISOString(),
      pendingCount: pending.count,
      oldestRequestedAt: oldest,
      approvals: pending.pending.map((p) => ({
        taskId: p.taskId,
        runId: p.runId,
        type: p.type,
        requestedAt: p.requestedAt,
        riskLevel: p.impact?.riskLevel ?? null,
        approvalReason: p.impact ? clipText(p.impact.approvalReason) : null,
      })),
    },
    { approvals: COMPANION_LIMITS.approvals },
  );
}

// ---------------------------------------------------------------- readers

export interface CompanionDeps {
  store: StateStore;
  incidents: IncidentReadPort;
  proof?: ProofReadPort;
  business?: BusinessReadPort;
  controlPlaneSnapshot: () => Promise<ControlPlaneSnapshot>;
  catalog: CatalogView;
  pendingApprovals: () => Promise<{ count: number; pending: PendingApprovalLike[] }>;
  now: () => Date;
}

/** The five read-first companion briefs, each from bounded store reads and the read ports. */
export function createCompanionBriefs(deps: CompanionDeps) {
  return {
    async overview() {
      const [snapshot, incidents, briefRun, proof, business] = await Promise.all([
        deps.controlPlaneSnapshot(),
        deps.incidents.rollup(),
        latestSuccess(deps.store, controlPlaneBriefType.type),
        readProof(deps.proof),
        readBusiness(deps.business),
      ]);
      return composeCompanionOverview({ now: deps.now(), snapshot, incidents, briefRun, proof, business });
    },
    async incidents() {
      const [rollup, open, triageRun] = await Promise.all([
        deps.incidents.rollup(),
        deps.incidents.listOpen(COMPANION_LIMITS.openIncidents),
        latestSuccess(deps.store, incidentTriageType.type),
      ]);
      return composeCompanionIncidents({ now: deps.now(), rollup, open, triageRun });
    },
    async catalog() {
      return composeCompanionCatalog(deps.now(), await deps.catalog.publicEntries());
    },
    async runs() {
      const [runs, counts] = await Promise.all([deps.store.listRuns({ limit: COMPANION_LIMITS.runs }), deps.store.countRuns(false)]);
      return composeCompanionRuns(deps.now(), runs, { ...counts.byStatus });
    },
    async approvals() {
      return composeCompanionApprovals(deps.now(), await deps.pendingApprovals());
    },
  };
}

export type CompanionBriefs = ReturnType<typeof createCompanionBriefs>;
