import type { BusinessRegistry, CoverageGap, Kpi, RegistryAction, StrategicInitiative } from './registry-schema.js';
import { APPROVAL_GATED_KINDS } from './safety.js';
import { contentGenerateType } from '../lanes/content-generate/definition.js';

/**
 * The business planner: a pure, deterministic ranking of candidates drawn from the registry's
 * initiatives, coverage gaps, risks and live pipeline, and the choice of at most one of them to
 * enqueue. The same registry and context always give the same ranking (docs/business.md has the
 * scoring table).
 */

export type CandidateSource = 'initiative' | 'coverage-gap' | 'risk' | 'pipeline';

export type Disposition = 'eligible' | 'approval-gated' | 'not-allowlisted' | 'in-flight' | 'invalid-payload';

export interface ScoreFactor {
  factor: string;
  points: number;
  note?: string;
}

export interface Candidate {
  candidateId: string;
  source: CandidateSource;
  sourceId: string;
  title: string;
  action: { kind: RegistryAction['kind']; summary: string; taskType: string | null };
  payload: Record<string, unknown> | null;
  score: number;
  scoreBreakdown: ScoreFactor[];
  disposition: Disposition;
  dispositionReason: string | null;
  /** Values the registry does not know; they score nothing and are never filled in. */
  unknowns: Array<{ field: string; reason: string }>;
}

export interface PlannerContext {
  /** Candidate ids whose earlier task is still pending or running. */
  inFlight: ReadonlySet<string>;
  /** Why a payload would be refused at admission (schema, reserved field, workspace), or null. */
  checkPayload: (taskType: string, payload: Record<string, unknown>) => string | null;
}

export const SEVERITY_POINTS: Readonly<Record<CoverageGap['severity'], number>> = { critical: 45, high: 30, medium: 15, low: 5 };
export const STAGE_POINTS: Readonly<Record<string, number>> = { lead: 5, qualified: 10, proposal: 20, negotiation: 30 };
const OPEN_STAGES = new Set(Object.keys(STAGE_POINTS));

/** The bounded planning brief an initiative or a critical gap yields when it names no action. */
function planningBrief(name: string, description: string): RegistryAction {
  return {
    kind: 'internal-task',
    summary: `Draft a planning brief for ${name}`,
    taskType: contentGenerateType.type,
    // An internal status update on the subject: the content lane's closest kind to a planning brief.
    payload: { type: 'status-update', source: { name, description }, style: 'internal', length: 'medium' },
  };
}

/** Mean shortfall of the KPIs with known target and value, 0..1; unknown ones are listed, not guessed. */
function kpiShortfall(initiativeIndex: number, kpis: Kpi[]): { points: number; note: string; unknowns: Candidate['unknowns'] } {
  const unknowns: Candidate['unknowns'] = [];
  const gaps: number[] = [];
  kpis.forEach((kpi, k) => {
    if (kpi.current === null || kpi.target === null || kpi.target === 0) {
      unknowns.push({
        field: `/strategicInitiatives/${initiativeIndex}/kpis/${k}/${kpi.current === null ? 'current' : 'target'}`,
        reason: kpi.current === null ? (kpi.unknownReason ?? 'unknown') : 'no target set',
      });
      return;
    }
    const higherIsBetter = kpi.higherIsBetter ?? true;
    const raw = higherIsBetter ? (kpi.target - kpi.current) / Math.abs(kpi.target) : (kpi.current - kpi.target) / Math.abs(kpi.target);
    gaps.push(Math.min(1, Math.max(0, raw)));
  });
  if (gaps.length === 0) return { points: 0, note: 'no KPI with a known value and target', unknowns };
  const mean = gaps.reduce((a, b) => a + b, 0) / gaps.length;
  return { points: Math.round(mean * 20), note: `mean shortfall ${(mean * 100).toFixed(0)}% over ${gaps.length} KPI(s)`, unknowns };
}

function dispose(action: RegistryAction, candidateId: string, allowlist: ReadonlySet<string>, context: PlannerContext) {
  if (action.kind !== 'internal-task') {
    return { disposition: 'approval-gated' as const, reason: APPROVAL_GATED_KINDS[action.kind] };
  }
  const taskType = action.taskType ?? '';
  if (!allowlist.has(taskType)) {
    return { disposition: 'not-allowlisted' as const, reason: `${taskType} is not in the approval policy's autoEnqueueTaskTypes` };
  }
  if (context.inFlight.has(candidateId)) {
    return { disposition: 'in-flight' as const, reason: 'the task of an earlier cycle for this candidate is still pending or running' };
  }
  const problem = context.checkPayload(taskType, action.payload ?? {});
  if (problem) return { disposition: 'invalid-payload' as const, reason: problem };
  return { disposition: 'eligible' as const, reason: null };
}

interface Draft {
  source: CandidateSource;
  sourceId: string;
  title: string;
  action: RegistryAction;
  factors: ScoreFactor[];
  unknowns: Candidate['unknowns'];
}

function initiativeDraft(initiative: StrategicInitiative, i: number): Draft {
  const kpi = kpiShortfall(i, initiative.kpis);
  return {
    source: 'initiative',
    sourceId: initiative.id,
    title: initiative.title,
    action: initiative.nextAction ?? planningBrief(initiative.title, initiative.objective),
    factors: [
      { factor: 'initiative-priority', points: (6 - initiative.priority) * 10, note: `priority ${initiative.priority}` },
      { factor: 'kpi-shortfall', points: kpi.points, note: kpi.note },
    ],
    unknowns: kpi.unknowns,
  };
}

function drafts(registry: BusinessRegistry): Draft[] {
  const out: Draft[] = [];
  const activeInitiatives = new Set(registry.strategicInitiatives.filter((s) => s.status === 'active').map((s) => s.id));
  registry.strategicInitiatives.forEach((initiative, i) => {
    if (initiative.status === 'active') out.push(initiativeDraft(initiative, i));
  });
  for (const gap of registry.coverageGaps) {
    const action = gap.nextAction ?? (gap.severity === 'critical' ? planningBrief(gap.area, gap.description) : undefined);
    if (!action) continue;
    const linked = gap.initiativeId !== undefined && activeInitiatives.has(gap.initiativeId);
    out.push({
      source: 'coverage-gap',
      sourceId: gap.id,
      title: gap.area,
      action,
      factors: [
        { factor: 'gap-severity', points: SEVERITY_POINTS[gap.severity], note: gap.severity },
        { factor: 'linked-active-initiative', points: linked ? 10 : 0 },
      ],
      unknowns: [],
    });
  }
  for (const risk of registry.businessRisks) {
    if (risk.status !== 'open' || !risk.mitigation) continue;
    out.push({
      source: 'risk',
      sourceId: risk.id,
      title: risk.title,
      action: risk.mitigation,
      factors: [{ factor: 'risk-exposure', points: risk.likelihood * risk.impact * 2, note: `likelihood ${risk.likelihood} × impact ${risk.impact}` }],
      unknowns: [],
    });
  }
  registry.pipeline.forEach((item, i) => {
    if (!OPEN_STAGES.has(item.stage) || !item.nextAction) return;
    const known = item.valueUsd !== null;
    out.push({
      source: 'pipeline',
      sourceId: item.id,
      title: item.title,
      action: item.nextAction,
      factors: [
        { factor: 'pipeline-stage', points: STAGE_POINTS[item.stage] ?? 0, note: item.stage },
        {
          factor: 'pipeline-value',
          points: known ? Math.min(15, Math.round(Math.log10(1 + (item.valueUsd ?? 0)) * 3)) : 0,
          note: known ? `${item.valueUsd} USD` : 'value unknown',
        },
      ],
      unknowns: known ? [] : [{ field: `/pipeline/${i}/valueUsd`, reason: item.valueUnknownReason ?? 'unknown' }],
    });
  });
  return out;
}

/** Every candidate, best first (score descending, then candidate id), each with its disposition. */
export function rankCandidates(registry: BusinessRegistry, context: PlannerContext): Candidate[] {
  const allowlist = new Set(registry.approvalPolicy.autoEnqueueTaskTypes);
  const ranked = drafts(registry).map((d): Candidate => {
    const candidateId = `${d.source}:${d.sourceId}`;
    const { disposition, reason } = dispose(d.action, candidateId, allowlist, context);
    return {
      candidateId,
      source: d.source,
      sourceId: d.sourceId,
      title: d.title,
      action: { kind: d.action.kind, summary: d.action.summary, taskType: d.action.kind === 'internal-task' ? (d.action.taskType ?? null) : null },
      payload: d.action.kind === 'internal-task' ? { ...(d.action.payload ?? {}) } : null,
      score: d.factors.reduce((sum, f) => sum + f.points, 0),
      scoreBreakdown: d.factors,
      disposition,
      dispositionReason: reason,
      unknowns: d.unknowns,
    };
  });
  return ranked.sort((a, b) => b.score - a.score || (a.candidateId < b.candidateId ? -1 : a.candidateId > b.candidateId ? 1 : 0));
}

/** The one candidate a cycle may enqueue: the best eligible one, or null. Never an approval-gated kind. */
export function selectCandidate(ranked: readonly Candidate[]): Candidate | null {
  return ranked.find((c) => c.disposition === 'eligible' && c.action.kind === 'internal-task') ?? null;
}
