import { runSlotsOf, type ControlPlaneSnapshot } from '../../src/worker-sdk/control-plane.js';

export type SectionStatus = 'steady' | 'attention' | 'critical';

/** One part of the brief: its verdict, the facts (with their numbers) and the items behind them. */
export interface BriefSection {
  status: SectionStatus;
  facts: string[];
  items: Array<Record<string, string | number | boolean | null>>;
}

/**
 * When a section needs attention, and when it is critical:
 * - queue: more than 10 × the run slots (runSlotsOf) waiting, or any run retrying → attention;
 * - approvals: one pending longer than 1 h → attention, longer than 24 h → critical;
 * - incidents: an open warning → attention, an open critical → critical;
 * - services: a service-expected agent without a runnable entrypoint → attention;
 * - proof: no milestone, or the latest not completed → attention;
 * - runs: a type failing more than 50% of at least 4 finished runs → attention; more than 80%
 *   of at least 10 finished runs overall → critical.
 */
export const RULES = {
  queuePerSlot: 10,
  approvalAttentionMs: 60 * 60 * 1000,
  approvalCriticalMs: 24 * 60 * 60 * 1000,
  typeFailureRate: 0.5,
  typeMinFinished: 4,
  overallFailureRate: 0.8,
  overallMinFinished: 10,
} as const;

const HOUR = 3_600_000;
const hours = (ms: number) => `${(Math.round((ms / HOUR) * 10) / 10).toFixed(1)} h`;
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

function ageMs(at: string | null, now: number): number {
  const t = at ? Date.parse(at) : NaN;
  return Number.isFinite(t) ? Math.max(0, now - t) : 0;
}

export function queueSection(s: ControlPlaneSnapshot): BriefSection {
  const { queued, processing, held, retrying } = s.queue;
  const { slots, basis } = runSlotsOf(s);
  const limit = RULES.queuePerSlot * slots;
  const waiting = queued + retrying;
  const facts = [
    `${queued} queued, ${processing} processing (this instance has ${s.service.concurrency} run slots), ${held} held for approval, ${retrying} retrying`,
  ];
  if (waiting > limit) facts.push(`${waiting} waiting is above the ${limit}-run pressure line (${RULES.queuePerSlot} × ${basis})`);
  if (retrying > 0) facts.push(`${plural(retrying, 'run')} failed an attempt and wait for an automatic retry`);
  return { status: waiting > limit || retrying > 0 ? 'attention' : 'steady', facts, items: [] };
}

export function approvalsSection(s: ControlPlaneSnapshot, now: number): BriefSection {
  const oldest = ageMs(s.approvals.oldestRequestedAt, now);
  const items = s.approvals.items.map((a) => ({
    taskId: a.taskId,
    type: a.type,
    requestedAt: a.requestedAt,
    pendingHours: Math.round((ageMs(a.requestedAt, now) / HOUR) * 10) / 10,
  }));
  const facts = [`${plural(s.approvals.pendingCount, 'approval')} pending`];
  if (s.approvals.pendingCount > 0) facts.push(`oldest pending for ${hours(oldest)} (since ${s.approvals.oldestRequestedAt})`);
  for (const a of s.approvals.items.filter((item) => ageMs(item.requestedAt, now) > RULES.approvalAttentionMs)) {
    facts.push(`${a.type} approval ${a.taskId} pending for ${hours(ageMs(a.requestedAt, now))}`);
  }
  const status: SectionStatus =
    oldest > RULES.approvalCriticalMs ? 'critical' : oldest > RULES.approvalAttentionMs ? 'attention' : 'steady';
  return { status, facts, items };
}

export function incidentsSection(s: ControlPlaneSnapshot): BriefSection {
  const open = s.incidents.filter((i) => i.status !== 'resolved');
  const count = (sev: string) => open.filter((i) => i.severity === sev).length;
  const facts = [`${plural(open.length, 'open incident')}: ${count('critical')} critical, ${count('warning')} warning, ${count('info')} info`];
  const unacked = open.filter((i) => !i.acknowledged).length;
  if (unacked > 0) facts.push(`${unacked} not acknowledged`);
  if (s.incidents.length === 0) facts.push('the incident ledger holds no entries');
  return {
    status: count('critical') > 0 ? 'critical' : count('warning') > 0 ? 'attention' : 'steady',
    facts,
    items: open.map((i) => ({ id: i.id, severity: i.severity, classification: i.classification, title: i.title, acknowledged: i.acknowledged, owner: i.owner })),
  };
}

export function servicesSection(s: ControlPlaneSnapshot): BriefSection {
  const expected = s.agents.filter((a) => a.serviceExpected);
  const unspawnable = expected.filter((a) => !a.entrypointAvailable);
  const runnable = s.agents.filter((a) => a.entrypointAvailable).length;
  const facts = [
    `service up ${hours(s.service.uptimeSeconds * 1000)} (pid ${s.service.pid}), state store ${s.service.stateStore}, coordination ${s.service.coordination}`,
    `${runnable} of ${s.agents.length} agents have a runnable entrypoint; ${expected.length} service-expected (probe unavailable from a worker)`,
  ];
  for (const a of unspawnable) facts.push(`service-expected ${a.id} (${a.serviceUnitName ?? 'no unit'}) has no runnable entrypoint`);
  return {
    status: unspawnable.length > 0 ? 'attention' : 'steady',
    facts,
    items: expected.map((a) => ({ agentId: a.id, serviceUnitName: a.serviceUnitName, entrypointAvailable: a.entrypointAvailable, probe: 'probe unavailable' })),
  };
}

export function proofSection(s: ControlPlaneSnapshot): BriefSection {
  const latest = s.milestones[0];
  const facts = latest
    ? [`latest milestone ${latest.kind} ${latest.status} at ${latest.at}: ${latest.summary}`, `${plural(s.milestones.length, 'milestone')} in view`]
    : ['no milestone recorded'];
  return {
    status: !latest || latest.status !== 'completed' ? 'attention' : 'steady',
    facts,
    items: s.milestones.map((m) => ({ milestoneId: m.milestoneId, kind: m.kind, status: m.status, at: m.at })),
  };
}

export function runsSection(s: ControlPlaneSnapshot): BriefSection {
  let success = 0;
  let failed = 0;
  for (const t of s.runs.byType) {
    success += t.success;
    failed += t.failed;
  }
  const finished = success + failed;
  const overall = finished ? failed / finished : 0;
  const failing = s.runs.byType.filter(
    (t) => t.success + t.failed >= RULES.typeMinFinished && t.failureRate > RULES.typeFailureRate,
  );
  const facts = [`${failed} of ${finished} finished runs failed (${Math.round(overall * 100)}%) in the last ${s.runs.window} runs`];
  for (const t of failing) facts.push(`${t.type}: ${t.failed} of ${t.success + t.failed} failed (${Math.round(t.failureRate * 100)}%)`);
  const critical = finished >= RULES.overallMinFinished && overall > RULES.overallFailureRate;
  return {
    status: critical ? 'critical' : failing.length > 0 ? 'attention' : 'steady',
    facts,
    items: failing.map((t) => ({ type: t.type, failed: t.failed, finished: t.success + t.failed, failureRate: t.failureRate })),
  };
}
