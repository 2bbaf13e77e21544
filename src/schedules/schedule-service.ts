import { randomBytes } from 'node:crypto';
import type { Clock } from '../clock.js';
import { canonicalJson } from '../domain/canonical-json.js';
import { conflict, DomainError, invalidRequest, notFound, pointer, type ErrorDetail } from '../domain/errors.js';
import type { StateStore } from '../store/types.js';
import { actorList } from '../runtime/run-requesters.js';
import type { TriggerCheck } from '../runtime/trigger-check.js';
import { builtInScheduleViews, isBuiltInSchedule, type BuiltInConfig } from './built-in.js';
import { cronProblems, DEFAULT_TIMEZONE, nextFireTimes } from './cron-expression.js';
import {
  NO_FIRINGS,
  scheduleRequesters,
  type ScheduleCreate,
  type ScheduleDefinition,
  type ScheduledFlow,
  type ScheduleFiringState,
  type ScheduleList,
  type SchedulePatch,
  type ScheduleView,
} from './schedule-record.js';
import type { ScheduleStore } from './schedule-store.js';
import { validateFlowSteps } from '../flows/flow-validation.js';
import type { SecretRedactor } from '../redaction/known-secrets.js';
import { placementOf } from '../domain/run-record.js';
import { requestedPlacement } from '../runtime/placement-schema.js';
import { normalizedTags, tagsOf } from '../domain/run-tags.js';

export interface ScheduleServiceDeps {
  schedules: ScheduleStore;
  /** Reads the runs of the built-in schedules' latest slots. */
  store: StateStore;
  clock: Clock;
  /** The trigger route's check (catalog, internal types, reserved fields, payload schema, workspace scope). */
  checkTrigger: TriggerCheck;
  builtInConfig: BuiltInConfig;
  /** Told after every write on this instance, so its timer takes the change at once. */
  onChange: () => void;
  /**
   * Replaces the service's own secrets in a payload before it is stored (src/redaction/), as
   * admission does for a run's: a schedule's payload is read back by every viewer. Absent: kept.
   */
  redact?: Pick<SecretRedactor, 'value'>;
}

const NEXT_RUNS_SHOWN = 5;

/** Codes of the trigger check that mean "this type or payload cannot be scheduled": a 400 naming the field. */
const TRIGGER_REFUSALS = new Set(['invalid_request', 'task_type_internal', 'reserved_field', 'scope_outside_workspace']);

type Candidate = Pick<ScheduleDefinition, 'cron' | 'timezone' | 'type' | 'payload' | 'flow' | 'concurrencyKey' | 'priority' | 'tags'>;

/** The task type and payload checked as a trigger of them is: its details name the schedule's fields (`type`, `payload`). */
function taskProblems(type: string, payload: Record<string, unknown>, checkTrigger: TriggerCheck): ErrorDetail[] {
  const problems: ErrorDetail[] = [];
  try {
    checkTrigger({ type, payload });
  } catch (err) {
    if (!(err instanceof DomainError) || !TRIGGER_REFUSALS.has(err.code)) throw err;
    const details = Array.isArray(err.details) ? (err.details as ErrorDetail[]) : [];
    problems.push(...(details.length > 0 ? details : [{ path: pointer('body', 'type'), message: err.message }]));
  }
  if ('idempotencyKey' in payload) {
    problems.push({
      path: pointer('body', 'payload', 'idempotencyKey'),
      message: 'a schedule names each run itself (schedule:<id>:<fire time>); leave idempotencyKey out',
    });
  }
  return problems;
}

/** The flow checked as POST /api/flows checks one, its details re-pointed from `/body/steps` to `/body/flow/steps`. */
function flowProblems(flow: ScheduledFlow, checkTrigger: TriggerCheck): ErrorDetail[] {
  try {
    validateFlowSteps(flow.steps, checkTrigger);
    return [];
  } catch (err) {
    if (!(err instanceof DomainError) || !TRIGGER_REFUSALS.has(err.code)) throw err;
    const details = Array.isArray(err.details) ? (err.details as ErrorDetail[]) : [];
    const repoint = (path: string) => (path.startsWith('/body/') ? pointer('body', 'flow') + path.slice('/body'.length) : path);
    return details.length > 0 ? details.map((d) => ({ path: repoint(d.path), message: d.message })) : [{ path: pointer('body', 'flow'), message: err.message }];
  }
}

/** What a firing runs: a task type and payload, or a flow; exactly one. */
function workProblems(candidate: Candidate, checkTrigger: TriggerCheck): ErrorDetail[] {
  if (candidate.type === undefined && candidate.flow === undefined) {
    return [{ path: pointer('body', 'type'), message: 'a schedule runs a task type (`type`, `payload`) or a flow (`flow`): send one of them' }];
  }
  if (candidate.flow === undefined) return taskProblems(candidate.type!, candidate.payload, checkTrigger);
  const problems: ErrorDetail[] = [];
  if (candidate.type !== undefined) problems.push({ path: pointer('body', 'flow'), message: 'a schedule runs a task type or a flow, not both: leave `type` out' });
  if (Object.keys(candidate.payload).length > 0) problems.push({ path: pointer('body', 'payload'), message: 'a flow schedule\'s payloads are its steps\' (`flow.steps[i].payload`)' });
  for (const field of ['concurrencyKey', 'priority', 'tags'] as const) {
    if (candidate[field] !== undefined) problems.push({ path: pointer('body', field), message: `a flow schedule's steps carry their own ${field} (\`flow.steps[i].${field}\`)` });
  }
  return [...problems, ...flowProblems(candidate.flow, checkTrigger)];
}

/** The problems of a would-be definition, each naming its body field; empty when it can be stored. */
function definitionProblems(candidate: Candidate, checkTrigger: TriggerCheck, now: Date): ErrorDetail[] {
  return [...cronProblems(candidate, { cron: pointer('body', 'cron'), timezone: pointer('body', 'timezone') }, now), ...workProblems(candidate, checkTrigger)];
}

/**
 * Whether a change makes its author one of the schedule's requesters: it changes the work every
 * firing runs (type, payload), or switches the schedule on (asks for its firings). Timing and
 * policies do not: they decide when, not what. A field sent with its stored value changes nothing.
 */
function shapesFirings(before: ScheduleDefinition, after: ScheduleDefinition): boolean {
  return (
    after.type !== before.type ||
    canonicalJson(after.payload) !== canonicalJson(before.payload) ||
    canonicalJson(after.flow ?? null) !== canonicalJson(before.flow ?? null) ||
    (after.enabled && !before.enabled)
  );
}

function refuseInvalid(problems: ErrorDetail[]): void {
  if (problems.length === 0) return;
  const fields = [...new Set(problems.map((p) => p.path))].join(', ');
  throw invalidRequest(`the schedule is not valid (${fields})`, problems);
}

const builtInRefusal = (id: string) =>
  conflict(`'${id}' is a built-in schedule of the service; change it in the configuration (heartbeatCron, nightlyBatchCron, businessCycleCron, schedulerEnabled)`, [
    { path: pointer('params', 'id'), message: 'is a built-in schedule' },
  ]);

/** A fresh id for a schedule created without one: short enough to read in a run id. */
const generatedId = () => `sched-${randomBytes(6).toString('hex')}`;

/** The view of a user schedule at `now`: its definition, its next times and what firing last did. */
const idTaken = (id: string) => conflict(`a schedule with id '${id}' already exists`, [{ path: pointer('body', 'id'), message: 'is taken' }]);

export function scheduleView(definition: ScheduleDefinition, firing: ScheduleFiringState, now: Date): ScheduleView {
  const after = new Date(Math.max(now.getTime(), Date.parse(definition.activeSince)));
  return {
    id: definition.id,
    builtIn: false,
    cron: definition.cron,
    timezone: definition.timezone,
    type: definition.type ?? null,
    payload: definition.payload,
    flow: definition.flow ?? null,
    enabled: definition.enabled,
    overlap: definition.overlap,
    catchUp: definition.catchUp,
    ...placementOf(definition),
    tags: tagsOf(definition),
    nextRunAt: definition.enabled ? nextFireTimes(definition, after, NEXT_RUNS_SHOWN).map((d) => d.toISOString()) : [],
    lastRunId: firing.lastRunId,
    lastFiredAt: firing.lastFiredAt,
    lastCatchUp: firing.lastCatchUp,
    lastSkippedAt: firing.lastSkippedAt,
    lastSkipReason: firing.lastSkipReason,
    lastSkip: firing.lastSkip ?? null,
    requesters: scheduleRequesters(definition),
    createdAt: definition.createdAt,
    updatedAt: definition.updatedAt,
    createdBy: definition.createdBy,
    updatedBy: definition.updatedBy,
  };
}

/**
 * The schedules API of the domain: list, read, create, change and delete user schedules, with
 * the built-in schedules listed beside them and refused to writes (`conflict`).
 *
 * Writes are read-then-write on one document: two instances creating the same id in the same
 * instant can both succeed, the later write winning (the store has no insert-if-absent for
 * documents). A firing's exactly-once does not rest on this: it rests on the run id.
 */
export function createScheduleService(deps: ScheduleServiceDeps) {
  const { schedules, clock, checkTrigger } = deps;

  async function userView(definition: ScheduleDefinition, now: Date): Promise<ScheduleView> {
    return scheduleView(definition, await schedules.firings(definition.id), now);
  }

  async function list(): Promise<ScheduleList> {
    const now = clock.now();
    const [builtIns, definitions, firings] = await Promise.all([
      builtInScheduleViews(deps.builtInConfig, deps.store, now),
      schedules.list(),
      schedules.allFirings(),
    ]);
    const views = [...builtIns, ...definitions.map((d) => scheduleView(d, firings.get(d.id) ?? NO_FIRINGS, now))];
    return { count: views.length, schedules: views };
  }

  async function get(id: string): Promise<ScheduleView> {
    const now = clock.now();
    if (isBuiltInSchedule(id)) {
      const view = (await builtInScheduleViews(deps.builtInConfig, deps.store, now)).find((s) => s.id === id);
      if (view) return view;
    }
    const definition = await schedules.get(id);
    if (!definition) throw notFound(`schedule '${id}'`);
    return userView(definition, now);
  }

  const redactPayload = (payload: Record<string, unknown>) => deps.redact?.value(payload) ?? payload;
  const redactFlow = (flow: ScheduledFlow): ScheduledFlow => ({ steps: flow.steps.map((step) => (step.payload ? { ...step, payload: redactPayload(step.payload) } : step)) });

  async function create(input: ScheduleCreate, actor: string): Promise<ScheduleView> {
    const id = input.id ?? generatedId();
    if (isBuiltInSchedule(id)) throw builtInRefusal(id);
    if (await schedules.get(id)) throw idTaken(id);
    const now = clock.now();
    const at = now.toISOString();
    const definition: ScheduleDefinition = {
      id,
      cron: input.cron.trim(),
      timezone: input.timezone ?? DEFAULT_TIMEZONE,
      ...(input.type !== undefined ? { type: input.type } : {}),
      payload: redactPayload(input.payload ?? {}),
      ...(input.flow !== undefined ? { flow: redactFlow(input.flow) } : {}),
      enabled: input.enabled ?? true,
      overlap: input.overlap ?? 'skip',
      catchUp: input.catchUp ?? 'skip',
      ...requestedPlacement(input),
      ...(input.tags !== undefined && input.tags.length > 0 ? { tags: normalizedTags(input.tags) } : {}),
      createdAt: at,
      updatedAt: at,
      createdBy: actor,
      updatedBy: actor,
      requesters: [actor],
      activeSince: at,
    };
    refuseInvalid(definitionProblems(definition, checkTrigger, now));
    // A deleted schedule's firing state (a firing in flight when it was deleted) is not this one's.
    await schedules.resetFirings(id);
    if (!(await schedules.create(definition))) throw idTaken(id);
    deps.onChange();
    return scheduleView(definition, NO_FIRINGS, now);
  }

  async function update(id: string, patch: SchedulePatch, actor: string): Promise<ScheduleView> {
    if (isBuiltInSchedule(id)) throw builtInRefusal(id);
    const existing = await schedules.get(id);
    if (!existing) throw notFound(`schedule '${id}'`);
    const now = clock.now();
    const at = now.toISOString();
    // `type` makes it a task schedule, `flow` a flow schedule: the other kind's fields go (both sent: refused below).
    const { type: oldType, flow: oldFlow, ...stored } = existing;
    // A flow's steps carry their own placement: a task schedule's key and priority go with its type.
    const { concurrencyKey: _key, priority: _priority, tags: _tags, ...unplaced } = stored;
    const kept = patch.flow !== undefined ? unplaced : stored;
    const work =
      patch.type !== undefined && patch.flow !== undefined
        ? { type: patch.type, flow: patch.flow }
        : patch.flow !== undefined
          ? { flow: redactFlow(patch.flow) }
          : patch.type !== undefined
            ? { type: patch.type }
            : { ...(oldType !== undefined ? { type: oldType } : {}), ...(oldFlow !== undefined ? { flow: oldFlow } : {}) };
    const { type: _type, flow: _flow, ...rest } = patch;
    const merged: ScheduleDefinition = {
      ...kept,
      ...rest,
      ...work,
      payload: patch.payload === undefined ? (patch.flow !== undefined ? {} : existing.payload) : redactPayload(patch.payload),
      cron: (patch.cron ?? existing.cron).trim(),
      updatedAt: at,
      updatedBy: actor,
    };
    refuseInvalid(definitionProblems(merged, checkTrigger, now));
    // New timing, or switched on again: ticks before now were never this schedule's to catch up.
    const retimed = merged.cron !== existing.cron || merged.timezone !== existing.timezone || (merged.enabled && !existing.enabled);
    const requesters = shapesFirings(existing, merged) ? actorList(scheduleRequesters(existing), [actor]) : scheduleRequesters(existing);
    const definition = { ...merged, requesters, activeSince: retimed ? at : existing.activeSince };
    await schedules.put(definition);
    deps.onChange();
    return userView(definition, now);
  }

  async function remove(id: string): Promise<void> {
    if (isBuiltInSchedule(id)) throw builtInRefusal(id);
    if (!(await schedules.get(id))) throw notFound(`schedule '${id}'`);
    await schedules.remove(id);
    deps.onChange();
  }

  return { list, get, create, update, remove };
}

export type ScheduleService = ReturnType<typeof createScheduleService>;
