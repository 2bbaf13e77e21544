import type { AppConfig } from '../config/types.js';
import type { StateStore } from '../store/types.js';
import type { Admit } from '../runtime/admission.js';
import type { HandlerOutcome, StateHandler } from '../runtime/handler-types.js';
import { actorList, requestersOf } from '../runtime/run-requesters.js';
import { resolveWorkspacePath } from '../workspace/boundary.js';
import type { Clock } from '../clock.js';
import { SERVICE_RUN_ID_PREFIXES } from '../domain/service-run-ids.js';
import { WORK_CYCLE_TASK } from './work-cycle/handler.js';

/** The only sources autonomous intake takes work from. */
export const APPROVED_INTAKE_SOURCES = ['operator', 'queue', 'paused', 'standing-order', 'workboard', 'scheduled-audit', 'capability-gap'] as const;
export type IntakeSource = (typeof APPROVED_INTAKE_SOURCES)[number];

export const INTAKE_DEFAULTS = { batchSize: 3, maxAgeHours: 72 } as const;
const PRIORITY_RANK: Readonly<Record<string, number>> = { critical: 0, high: 1, medium: 2, low: 3 };

export interface IntakeItem {
  source: string;
  id: string;
  requestedOutcome: string;
  priority?: string;
  createdAt?: string;
  projectRoot?: string;
  maxSteps?: number;
  provenance?: { recordedBy?: string; reference?: string };
}

export interface AcceptedItem {
  item: IntakeItem;
  priority: string;
  runId: string;
}

export interface IntakeDecision {
  accepted: AcceptedItem[];
  refused: Array<{ source: string; id: string | null; reason: string }>;
  deferred: Array<{ source: string; id: string; reason: string }>;
}

export const isApprovedSource = (source: string): source is IntakeSource => (APPROVED_INTAKE_SOURCES as readonly string[]).includes(source);

/** The actor of the work cycles the intake admits (beside the intake run's requesters). */
const INTAKE_ACTOR = 'task:autonomous-intake-cycle';

/** The stable run id of the work cycle one intake item becomes: a repeat intake is a suppressed duplicate. */
export const workRunIdFor = (source: string, id: string) => `${SERVICE_RUN_ID_PREFIXES.autonomousWork}${source}:${id}`;

/**
 * Pure intake controls, in order: source (approved, and among the cycle's chosen sources),
 * shape, provenance (every source but `operator` names the record it came from), workspace
 * confinement, staleness, duplicates within the batch; then priority order (critical first,
 * older first, then id) and the batch limit.
 */
export function decideIntake(
  items: unknown[],
  options: { now: Date; batchSize: number; maxAgeHours: number; sources: readonly string[] | null; workspaceRoot: string },
): IntakeDecision {
  const refused: IntakeDecision['refused'] = [];
  const candidates: AcceptedItem[] = [];
  const seen = new Set<string>();
  for (const raw of items) {
    const item = (typeof raw === 'object' && raw !== null ? raw : {}) as Partial<IntakeItem>;
    const source = typeof item.source === 'string' ? item.source : '';
    const id = typeof item.id === 'string' && /^[A-Za-z0-9._:-]{1,100}$/.test(item.id) ? item.id : null;
    const refuse = (reason: string) => refused.push({ source: source || '(none)', id, reason });
    if (!isApprovedSource(source)) {
      refuse(`source '${source || '(none)'}' is not an approved intake source (${APPROVED_INTAKE_SOURCES.join(', ')})`);
      continue;
    }
    if (options.sources && !options.sources.includes(source)) {
      refuse(`source '${source}' is not among this cycle's sources (${options.sources.join(', ')})`);
      continue;
    }
    if (!id) {
      refuse('id is required: 1–100 letters, digits, dot, underscore, colon or dash');
      continue;
    }
    if (typeof item.requestedOutcome !== 'string' || item.requestedOutcome.trim() === '' || item.requestedOutcome.length > 500) {
      refuse('requestedOutcome is required (1–500 characters)');
      continue;
    }
    if (source !== 'operator' && !(typeof item.provenance?.reference === 'string' && item.provenance.reference.trim() !== '')) {
      refuse(`provenance.reference is required for ${source} items: the record the item came from`);
      continue;
    }
    if (item.projectRoot !== undefined) {
      try {
        resolveWorkspacePath(options.workspaceRoot, String(item.projectRoot));
      } catch (err) {
        refuse(`projectRoot ${(err as Error).message}`);
        continue;
      }
    }
    const created = item.createdAt === undefined ? options.now.getTime() : Date.parse(item.createdAt);
    if (Number.isNaN(created)) {
      refuse('createdAt is not an ISO 8601 timestamp');
      continue;
    }
    if (options.now.getTime() - created > options.maxAgeHours * 3_600_000) {
      refuse(`stale: created ${item.createdAt}, more than ${options.maxAgeHours} h ago`);
      continue;
    }
    const key = `${source}:${id}`;
    if (seen.has(key)) {
      refuse('duplicate of an earlier item in this batch');
      continue;
    }
    seen.add(key);
    const priority = typeof item.priority === 'string' && item.priority in PRIORITY_RANK ? item.priority : 'medium';
    candidates.push({ item: item as IntakeItem, priority, runId: workRunIdFor(source, id) });
  }
  const createdOf = (a: AcceptedItem) => (a.item.createdAt ? Date.parse(a.item.createdAt) : options.now.getTime());
  candidates.sort(
    (a, b) =>
      PRIORITY_RANK[a.priority]! - PRIORITY_RANK[b.priority]! || createdOf(a) - createdOf(b) || (a.runId < b.runId ? -1 : a.runId > b.runId ? 1 : 0),
  );
  return {
    accepted: candidates.slice(0, options.batchSize),
    refused,
    deferred: candidates.slice(options.batchSize).map((c) => ({ source: c.item.source, id: c.item.id, reason: `beyond the batch size of ${options.batchSize}` })),
  };
}

export interface IntakeDeps {
  store: StateStore;
  clock: Clock;
  admit: Admit;
}

/** The in-process handler of autonomous-intake-cycle: decides, then enqueues one work cycle per accepted item. */
export type IntakeContext = Pick<AppConfig, 'workspaceRoot'>;

export function createIntakeHandler(deps: IntakeDeps): StateHandler<IntakeContext> {
  return async (_state, config, input): Promise<HandlerOutcome> => {
    const { payload } = input;
    const sources = Array.isArray(payload.sources) ? payload.sources.filter((s): s is string => typeof s === 'string') : null;
    const unapproved = (sources ?? []).filter((s) => !isApprovedSource(s));
    if (unapproved.length > 0) {
      return {
        status: 'error',
        error: `refused: ${unapproved.map((s) => `'${s}'`).join(', ')} ${unapproved.length === 1 ? 'is not an approved intake source' : 'are not approved intake sources'} (${APPROVED_INTAKE_SOURCES.join(', ')})`,
      };
    }
    const items = Array.isArray(payload.items) ? payload.items : [];
    const batchSize = typeof payload.batchSize === 'number' && payload.batchSize >= 1 ? Math.min(25, Math.floor(payload.batchSize)) : INTAKE_DEFAULTS.batchSize;
    const maxAgeHours = typeof payload.maxAgeHours === 'number' && payload.maxAgeHours > 0 ? payload.maxAgeHours : INTAKE_DEFAULTS.maxAgeHours;
    const now = deps.clock.now();
    const decision = decideIntake(items, { now, batchSize, maxAgeHours, sources, workspaceRoot: config.workspaceRoot });

    const run = await deps.store.getRun(input.runId);
    const enqueued: Array<{ source: string; id: string; priority: string; runId: string; admission: string }> = [];
    for (const { item, priority, runId } of decision.accepted) {
      const outcome = await deps.admit({
        type: WORK_CYCLE_TASK,
        payload: {
          requestedOutcome: item.requestedOutcome.trim(),
          ...(item.projectRoot !== undefined ? { projectRoot: String(item.projectRoot) } : {}),
          ...(typeof item.maxSteps === 'number' && Number.isInteger(item.maxSteps) && item.maxSteps >= 1 && item.maxSteps <= 25 ? { maxSteps: item.maxSteps } : {}),
          intake: {
            source: item.source,
            itemId: item.id,
            priority,
            intakeRunId: input.runId,
            recordedBy: item.provenance?.recordedBy ?? run?.requestedBy ?? 'unknown',
            reference: item.provenance?.reference ?? null,
          },
        },
        source: 'system',
        requestedBy: INTAKE_ACTOR,
        // Accepted work is asked for by whoever asked for the intake cycle.
        requesters: actorList([INTAKE_ACTOR], run ? requestersOf(run) : []),
        forceRunId: runId,
      });
      enqueued.push({ source: item.source, id: item.id, priority, runId: outcome.run.runId, admission: outcome.kind === 'duplicate' ? `duplicate (${outcome.reason})` : outcome.kind });
    }
    if (items.length > 0 && enqueued.length === 0) {
      return { status: 'error', error: `no intake item was accepted: ${decision.refused.map((r) => `${r.source}:${r.id ?? '?'} ${r.reason}`).join('; ')}` };
    }
    return {
      status: 'completed',
      result: {
        itemsConsidered: items.length,
        enqueued,
        refused: decision.refused,
        deferred: decision.deferred,
        controls: { batchSize, maxAgeHours, sources: sources ?? [...APPROVED_INTAKE_SOURCES] },
        operatorSummary: `Intake took ${enqueued.length} item(s), refused ${decision.refused.length}, deferred ${decision.deferred.length}.`,
        recommendedNextActions: decision.refused.length > 0 ? ['Refused items name their reason; fix the source record or its provenance and submit again.'] : [],
      },
    };
  };
}
