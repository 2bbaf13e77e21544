import { controlPlaneOf } from '../../src/worker-sdk/control-plane.js';
import type { LanePayload } from '../../src/worker-sdk/lane-definition.js';
import { refuseLane, specialistContract, type LaneRefusal, type LaneResult } from '../../src/worker-sdk/lane-result.js';
import {
  approvalsSection,
  incidentsSection,
  proofSection,
  queueSection,
  runsSection,
  servicesSection,
  type BriefSection,
  type SectionStatus,
} from './brief-sections.js';
import { fitToSize, MAX_BRIEF_BYTES } from './fit-to-size.js';

export type BriefPosture = SectionStatus;

export type SectionName = 'queue' | 'approvals' | 'incidents' | 'services' | 'proof' | 'runs';

export interface Brief {
  headline: string;
  snapshotAt: string;
  sections: Record<SectionName, BriefSection>;
  /** What was cut to keep the brief within its size cap; empty when nothing was. */
  truncation: string[];
}

export type ControlPlaneBriefSuccess = LaneResult<{
  success: true;
  posture: BriefPosture;
  brief: Brief;
  briefBytes: number;
  truncated: boolean;
}>;

const IDENTITY = { role: 'operations-analyst-agent', workflowStage: 'brief', deliverable: 'control-plane brief' };
const ORDER: Record<SectionStatus, number> = { critical: 0, attention: 1, steady: 2 };

function headlineOf(posture: BriefPosture, sections: Record<SectionName, BriefSection>): string {
  const flagged = (Object.entries(sections) as Array<[SectionName, BriefSection]>)
    .filter(([, s]) => s.status !== 'steady')
    .sort((a, b) => ORDER[a[1].status] - ORDER[b[1].status]);
  if (flagged.length === 0) return 'Control plane steady: queue draining, no aged approvals, no open incidents, no failing lanes.';
  const lead = flagged.map(([name, s]) => `${name} (${s.status}): ${s.facts[s.facts.length > 1 ? 1 : 0]}`);
  return `Control plane ${posture}: ${lead.slice(0, 2).join('; ')}${flagged.length > 2 ? `; ${flagged.length - 2} more section(s) flagged` : ''}.`;
}

function actionsFor(sections: Record<SectionName, BriefSection>): string[] {
  const actions: string[] = [];
  if (sections.approvals.status !== 'steady') actions.push('Decide the aged approvals: GET /api/approvals/pending.');
  if (sections.incidents.status !== 'steady') actions.push('Acknowledge and own the open incidents; run incident-triage for the ranked queue.');
  if (sections.runs.status !== 'steady') actions.push('Read the failed runs of the failing lanes before triggering them again.');
  if (sections.queue.status !== 'steady') actions.push('Watch queue depth and retries; raise concurrency if the queue keeps growing.');
  if (sections.services.status !== 'steady') actions.push('Build or restore the entrypoints of service-expected agents (npm run build).');
  if (sections.proof.status !== 'steady') actions.push('Check GET /api/milestones/latest for the milestone that did not complete.');
  return actions.length ? actions : ['Nothing needs an operator now; run the brief again after the next batch of work.'];
}

/**
 * The control-plane-brief lane: queue, approvals, incidents, services, proof and run outcomes
 * from the service's snapshot, each a section of facts with numbers, fused into one posture
 * (the worst section) and a headline, capped at MAX_BRIEF_BYTES serialized.
 */
export function controlPlaneBrief(payload: LanePayload<'control-plane-brief'>): ControlPlaneBriefSuccess | LaneRefusal {
  const snapshot = controlPlaneOf(payload);
  if (!snapshot) {
    return refuseLane(
      IDENTITY,
      'the payload carries no control-plane snapshot (__controlPlane): the brief is built from the snapshot the service sends',
      ['Trigger control-plane-brief through the service, which attaches the snapshot.'],
    );
  }
  const parsed = Date.parse(snapshot.generatedAt);
  const now = Number.isFinite(parsed) ? parsed : Date.now();
  const sections: Record<SectionName, BriefSection> = {
    queue: queueSection(snapshot),
    approvals: approvalsSection(snapshot, now),
    incidents: incidentsSection(snapshot),
    services: servicesSection(snapshot),
    proof: proofSection(snapshot),
    runs: runsSection(snapshot),
  };
  const posture = Object.values(sections).reduce<BriefPosture>(
    (worst, s) => (ORDER[s.status] < ORDER[worst] ? s.status : worst),
    'steady',
  );
  const { brief, bytes } = fitToSize({ headline: headlineOf(posture, sections), snapshotAt: snapshot.generatedAt, sections, truncation: [] });
  return {
    success: true,
    posture,
    brief,
    briefBytes: bytes,
    truncated: brief.truncation.length > 0,
    operatorSummary: `${brief.headline} (brief ${bytes} bytes of at most ${MAX_BRIEF_BYTES}).`,
    recommendedNextActions: actionsFor(sections),
    specialistContract: specialistContract({ ...IDENTITY, status: 'completed' }),
  };
}
