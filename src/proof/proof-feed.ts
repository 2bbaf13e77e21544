import { createHash } from 'node:crypto';
import type { StateStore } from '../store/types.js';
import { publicCatalog, TASK_CATALOG } from '../runtime/catalog.js';
import type { RunRecord } from '../domain/run-record.js';
import {
  DEAD_LETTER_STATUSES,
  MILESTONE_KINDS,
  MILESTONE_STATUSES,
  type MilestoneKind,
  type MilestoneStatus,
} from './milestones.js';
import { COUNT, DIGEST, FLAG, oneOf, pickPublic, RATIO, TIMESTAMP, type FieldRules } from './public-fields.js';

/**
 * The public proof feeds (`/api/command-center/*`, `/api/milestones/*`). Each is assembled from
 * counts and fixed vocabularies and every object passes pickPublic with its own rules, so what a
 * stranger can read is decided here, field by field, and nothing else reaches the body.
 */

/** What each milestone says in public: a fixed sentence per kind and status, never the stored text. */
const PUBLIC_SUMMARY: Record<MilestoneKind, Record<MilestoneStatus, string>> = {
  startup: {
    completed: 'Service started; configuration loaded and state initialized.',
    'at-risk': 'Service start needs attention.',
    blocked: 'Service start is blocked.',
    failed: 'Service start failed.',
  },
  'drift-repair': {
    completed: 'Documentation drift repaired; knowledge pack regenerated and verified.',
    'at-risk': 'Documentation drift repair finished without a verified knowledge pack.',
    blocked: 'Documentation drift repair is blocked.',
    failed: 'Documentation drift repair failed.',
  },
  'proof-delivery': {
    completed: 'Operations digest delivered.',
    'at-risk': 'Operations digest delivery is at risk.',
    blocked: 'Operations digest delivery is blocked.',
    failed: 'Operations digest delivery failed.',
  },
};
const SUMMARIES = Object.values(PUBLIC_SUMMARY).flatMap((byStatus) => Object.values(byStatus));

const MILESTONE_RULES: FieldRules = {
  id: DIGEST,
  kind: oneOf(MILESTONE_KINDS),
  status: oneOf(MILESTONE_STATUSES),
  at: TIMESTAMP,
  summary: oneOf(SUMMARIES),
  filesAudited: COUNT,
  driftDetected: FLAG,
  knowledgePackVersion: COUNT,
};

const TYPES = TASK_CATALOG.map((e) => e.type);
const LABELS = TASK_CATALOG.map((e) => e.label);
const OPERATIONAL = ['confirmed-working', 'partially-operational', 'externally-dependent', 'unconfirmed'] as const;
const DEPENDENCY = ['control-plane', 'worker', 'external'] as const;
const RUN_COUNT_RULES: FieldRules = { success: COUNT, failed: COUNT, running: COUNT, pending: COUNT, retrying: COUNT, cancelled: COUNT, total: COUNT };

/** A public id for a stored milestone: a hash, so the stored id (which names a run) stays private. */
function publicId(milestoneId: unknown): string {
  return `ms_${createHash('sha256').update(String(milestoneId)).digest('hex').slice(0, 16)}`;
}

function isKind(value: unknown): value is MilestoneKind {
  return typeof value === 'string' && (MILESTONE_KINDS as readonly string[]).includes(value);
}
function isStatus(value: unknown): value is MilestoneStatus {
  return typeof value === 'string' && (MILESTONE_STATUSES as readonly string[]).includes(value);
}

/** One stored milestone in its public form, or null when its kind or status is not a public one. */
export function publicMilestone(stored: Record<string, unknown>): Record<string, string | number | boolean> | null {
  if (!isKind(stored.kind) || !isStatus(stored.status)) return null;
  return pickPublic(
    {
      id: publicId(stored.milestoneId),
      kind: stored.kind,
      status: stored.status,
      at: stored.at,
      summary: PUBLIC_SUMMARY[stored.kind][stored.status],
      filesAudited: stored.filesAudited,
      driftDetected: stored.driftDetected,
      knowledgePackVersion: stored.knowledgePackVersion,
    },
    MILESTONE_RULES,
  );
}

export interface ProofFeedDeps {
  store: StateStore;
  now: () => Date;
}

/** How many milestones the dead-letter feed looks back over. */
const DEAD_LETTER_WINDOW = 500;
/** How many newest runs the demand figures are computed over. */
const DEMAND_WINDOW = 1000;
const HOUR_MS = 3_600_000;

function runCounts(counts: Record<string, number>): Record<string, string | number | boolean> {
  const total = Object.values(counts).reduce((a, b) => a + b, 0);
  return pickPublic({ ...counts, total }, RUN_COUNT_RULES);
}

function within(iso: string | null, since: number): boolean {
  return iso !== null && Date.parse(iso) >= since;
}

export function createProofFeed(deps: ProofFeedDeps) {
  const { store } = deps;

  async function milestonesLatest(limit: number) {
    const { items, total } = await store.listAppended('milestones', { limit });
    const milestones = items.map(publicMilestone).filter((m): m is NonNullable<typeof m> => m !== null);
    return { generatedAt: deps.now().toISOString(), count: milestones.length, total, milestones };
  }

  async function deadLetter(limit: number) {
    const { items } = await store.listAppended('milestones', { limit: DEAD_LETTER_WINDOW });
    const blocked = items.filter((m) => isStatus(m.status) && DEAD_LETTER_STATUSES.includes(m.status));
    const published = blocked
      .slice(0, limit)
      .map(publicMilestone)
      .filter((m): m is NonNullable<typeof m> => m !== null);
    return { generatedAt: deps.now().toISOString(), count: published.length, total: blocked.length, items: published };
  }

  async function control() {
    const counts = await store.countRuns(false);
    const lanes = publicCatalog().map((entry) => {
      const byStatus = counts.byType[entry.type] ?? { pending: 0, running: 0, success: 0, failed: 0, retrying: 0, cancelled: 0 };
      const finished = byStatus.success + byStatus.failed;
      return {
        ...pickPublic(
          {
            type: entry.type,
            label: entry.label,
            operationalStatus: entry.operationalStatus,
            dependencyClass: entry.dependencyClass,
            approvalGated: entry.approvalGated,
            ...(finished > 0 ? { successRate: Math.round((byStatus.success / finished) * 1000) / 1000 } : {}),
          },
          {
            type: oneOf(TYPES),
            label: oneOf(LABELS),
            operationalStatus: oneOf(OPERATIONAL),
            dependencyClass: oneOf(DEPENDENCY),
            approvalGated: FLAG,
            successRate: RATIO,
          },
        ),
        runs: runCounts({ ...byStatus }),
      };
    });
    return { generatedAt: deps.now().toISOString(), laneCount: lanes.length, lanes };
  }

  async function queueFigures() {
    const counts = await store.countRuns(false);
    return pickPublic(
      { queued: counts.ready, processing: counts.byStatus.running, awaitingApproval: counts.held, retrying: counts.byStatus.retrying },
      { queued: COUNT, processing: COUNT, awaitingApproval: COUNT, retrying: COUNT },
    );
  }

  async function demand() {
    const now = deps.now();
    const state = await store.getState();
    const leads = state.rssDrafts;
    const { items } = await store.listRuns({ limit: DEMAND_WINDOW });
    const dayAgo = now.getTime() - 24 * HOUR_MS;
    const perType = new Map<string, number>();
    for (const run of items) if (within(run.createdAt, dayAgo)) perType.set(run.type, (perType.get(run.type) ?? 0) + 1);
    const latestDraftAt = state.communityResponses.reduce<string | null>((a, r) => (a === null || r.timestamp > a ? r.timestamp : a), null);
    return {
      generatedAt: now.toISOString(),
      leads: pickPublic(
        {
          total: leads.length,
          high: leads.filter((l) => l.urgency === 'high').length,
          medium: leads.filter((l) => l.urgency === 'medium').length,
          low: leads.filter((l) => l.urgency === 'low').length,
          selectedForDraft: leads.filter((l) => l.selectedForDraft === true).length,
          awaitingReview: leads.filter((l) => l.draftDecision === 'manual-review' || l.draftDecision === 'promotion').length,
        },
        { total: COUNT, high: COUNT, medium: COUNT, low: COUNT, selectedForDraft: COUNT, awaitingReview: COUNT },
      ),
      community: pickPublic(
        { drafts: state.communityResponses.length, latestDraftAt },
        { drafts: COUNT, latestDraftAt: TIMESTAMP },
      ),
      queue: await queueFigures(),
      requestsLast24h: [...perType.entries()]
        .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
        .map(([type, count]) => pickPublic({ type, count }, { type: oneOf(TYPES), count: COUNT }))
        .filter((row) => row.type !== undefined),
    };
  }

  async function demandLive() {
    const now = deps.now();
    const hourAgo = now.getTime() - HOUR_MS;
    const { items } = await store.listRuns({ limit: DEMAND_WINDOW });
    return {
      generatedAt: now.toISOString(),
      queue: await queueFigures(),
      lastHour: pickPublic(
        {
          admitted: items.filter((r: RunRecord) => within(r.createdAt, hourAgo)).length,
          succeeded: items.filter((r) => r.status === 'success' && within(r.finishedAt, hourAgo)).length,
          failed: items.filter((r) => r.status === 'failed' && within(r.finishedAt, hourAgo)).length,
        },
        { admitted: COUNT, succeeded: COUNT, failed: COUNT },
      ),
    };
  }

  async function overview() {
    const now = deps.now();
    const [state, counts, milestones, dead] = await Promise.all([
      store.getState(),
      store.countRuns(false),
      store.listAppended('milestones', { limit: 1 }),
      deadLetter(DEAD_LETTER_WINDOW),
    ]);
    const catalog = publicCatalog();
    const latest = milestones.items[0] ? publicMilestone(milestones.items[0]) : null;
    return {
      generatedAt: now.toISOString(),
      service: pickPublic({ status: 'running', lastStartedAt: state.lastStartedAt }, { status: oneOf(['running']), lastStartedAt: TIMESTAMP }),
      runs: runCounts({ ...counts.byStatus }),
      lanes: pickPublic(
        {
          total: catalog.length,
          confirmedWorking: catalog.filter((e) => e.operationalStatus === 'confirmed-working').length,
          externallyDependent: catalog.filter((e) => e.operationalStatus === 'externally-dependent').length,
          unconfirmed: catalog.filter((e) => e.operationalStatus === 'unconfirmed').length,
        },
        { total: COUNT, confirmedWorking: COUNT, externallyDependent: COUNT, unconfirmed: COUNT },
      ),
      approvals: pickPublic({ pending: counts.held }, { pending: COUNT }),
      milestones: {
        ...pickPublic({ total: milestones.total, deadLetter: dead.total }, { total: COUNT, deadLetter: COUNT }),
        latest,
      },
    };
  }

  /** The proof read port of the aggregates (extended health, companion briefs): counts only. */
  async function summary() {
    const [latest, window] = await Promise.all([
      store.listAppended('milestones', { limit: 1 }),
      store.listAppended('milestones', { limit: DEAD_LETTER_WINDOW }),
    ]);
    const blocked = window.items.filter((m) => isStatus(m.status) && DEAD_LETTER_STATUSES.includes(m.status));
    const at = latest.items[0]?.at;
    return {
      itemCount: latest.total,
      atRiskCount: blocked.filter((m) => m.status === 'at-risk').length,
      deadLetterCount: blocked.length,
      latestAt: typeof at === 'string' ? at : null,
    };
  }

  return { overview, control, demand, demandLive, milestonesLatest, deadLetter, summary };
}

export type ProofFeed = ReturnType<typeof createProofFeed>;
