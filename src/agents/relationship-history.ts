import type { RunRecord } from '../domain/run-record.js';
import { expandRelationships, type DeclaredRelationship, DECLARED_RELATIONSHIPS } from './topology.js';

/**
 * Observed relationships, derived from the newest runs (at most RELATIONSHIP_RUN_WINDOW): every
 * worker run is a delegation orchestrator → agent; a run with tool-gate evidence is tool use
 * agent → skill (one per skill exercised); a run of a verifying or monitoring agent's lane is a
 * verification or monitoring observation towards the agents it is declared to watch.
 */

export const RELATIONSHIP_RUN_WINDOW = 2000;
export const TIMELINE_BUCKETS = 48;
export const RECENT_OBSERVATIONS = 20;

export type ObservedRelationship = 'delegation' | 'tool-use' | 'verification' | 'monitoring';

export interface RelationshipObservation {
  at: string;
  relationship: ObservedRelationship;
  from: string;
  to: string;
  runId: string;
  taskType: string;
  status: string;
}

export interface RelationshipHistory {
  windowRuns: number;
  totalObservations: number;
  lastObservedAt: string | null;
  byRelationship: Record<ObservedRelationship, number>;
  byStatus: Record<string, number>;
  /** Hour buckets (UTC, `YYYY-MM-DDTHH:00:00.000Z`), oldest first, the newest 48 that have observations. */
  timeline: Array<{ hour: string; total: number; byRelationship: Record<ObservedRelationship, number> }>;
  recent: RelationshipObservation[];
  windows: { short: { hours: 1; totalObservations: number }; long: { hours: 24; totalObservations: number } };
  graph: { totalNodes: number; totalEdges: number };
}

interface HistoryAgent {
  id: string;
  lanes: readonly string[];
}

const emptyByRelationship = (): Record<ObservedRelationship, number> => ({ delegation: 0, 'tool-use': 0, verification: 0, monitoring: 0 });

const observedAt = (run: RunRecord): string => run.finishedAt ?? run.updatedAt ?? run.createdAt;

/** The observations one run gives, given the lane owners and the declared watch table. */
export function observationsOfRun(
  run: RunRecord,
  laneOwner: ReadonlyMap<string, string>,
  watches: ReadonlyMap<string, Array<{ to: string; relationship: 'verification' | 'monitoring' }>>,
): RelationshipObservation[] {
  const agentId = laneOwner.get(run.type);
  if (!agentId) return [];
  const at = observedAt(run);
  const base = { at, runId: run.runId, taskType: run.type, status: run.status };
  const out: RelationshipObservation[] = [{ ...base, relationship: 'delegation', from: 'orchestrator', to: agentId }];
  const gate = run.toolGate;
  if (gate) {
    const skills = gate.execute ? gate.execute.skillsExercised : [];
    const status = gate.preflight.decision === 'refused' ? 'refused' : gate.execute && !gate.execute.ok ? 'failed' : run.status;
    for (const skill of skills) out.push({ ...base, status, relationship: 'tool-use', from: agentId, to: `skill:${skill}` });
  }
  for (const w of watches.get(agentId) ?? []) out.push({ ...base, relationship: w.relationship, from: agentId, to: w.to });
  return out;
}

const hourOf = (iso: string): string => `${iso.slice(0, 13)}:00:00.000Z`;

export function buildRelationshipHistory(
  runs: readonly RunRecord[],
  agents: readonly HistoryAgent[],
  now: Date,
  table: readonly DeclaredRelationship[] = DECLARED_RELATIONSHIPS,
): RelationshipHistory {
  const laneOwner = new Map<string, string>();
  for (const a of agents) for (const lane of a.lanes) laneOwner.set(lane, a.id);
  const watches = new Map<string, Array<{ to: string; relationship: 'verification' | 'monitoring' }>>();
  for (const e of expandRelationships(agents.map((a) => a.id), table).edges) {
    if (e.relationship !== 'verifies-agent' && e.relationship !== 'monitors-agent') continue;
    const list = watches.get(e.from) ?? [];
    list.push({ to: e.to, relationship: e.relationship === 'verifies-agent' ? 'verification' : 'monitoring' });
    watches.set(e.from, list);
  }

  const window = runs.slice(0, RELATIONSHIP_RUN_WINDOW);
  const observations = window.flatMap((run) => observationsOfRun(run, laneOwner, watches));
  observations.sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : 0));

  const byRelationship = emptyByRelationship();
  const byStatus: Record<string, number> = {};
  const buckets = new Map<string, { hour: string; total: number; byRelationship: Record<ObservedRelationship, number> }>();
  const nodes = new Set<string>();
  const edges = new Set<string>();
  const shortSince = now.getTime() - 3_600_000;
  const longSince = now.getTime() - 24 * 3_600_000;
  let short = 0;
  let long = 0;
  for (const o of observations) {
    byRelationship[o.relationship] += 1;
    byStatus[o.status] = (byStatus[o.status] ?? 0) + 1;
    const hour = hourOf(o.at);
    const bucket = buckets.get(hour) ?? { hour, total: 0, byRelationship: emptyByRelationship() };
    bucket.total += 1;
    bucket.byRelationship[o.relationship] += 1;
    buckets.set(hour, bucket);
    nodes.add(o.from);
    nodes.add(o.to);
    edges.add(`${o.from}\u0000${o.to}\u0000${o.relationship}`);
    const t = Date.parse(o.at);
    if (t >= shortSince && t <= now.getTime()) short += 1;
    if (t >= longSince && t <= now.getTime()) long += 1;
  }

  const timeline = [...buckets.values()].sort((a, b) => (a.hour < b.hour ? -1 : 1)).slice(-TIMELINE_BUCKETS);
  return {
    windowRuns: window.length,
    totalObservations: observations.length,
    lastObservedAt: observations[0]?.at ?? null,
    byRelationship,
    byStatus,
    timeline,
    recent: observations.slice(0, RECENT_OBSERVATIONS),
    windows: { short: { hours: 1, totalObservations: short }, long: { hours: 24, totalObservations: long } },
    graph: { totalNodes: nodes.size, totalEdges: edges.size },
  };
}
