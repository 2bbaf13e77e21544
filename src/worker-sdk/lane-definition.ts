import type { ErrorDetail } from '../domain/errors.js';
import { payloadProblems } from '../lanes/payload-check.js';
import type { PayloadTaskType, TaskPayload } from '../lanes/payload-schemas.js';
import { refuseLane, type LaneContext, type LaneRefusal } from './lane-result.js';

/**
 * Fields the service adds to a payload just before the spawn (`__controlPlane`, `__knowledge`,
 * `__marketResearch`, `__communityResponse`, `__incidentId`, ...). No client can send them and the
 * task schemas do not describe them, so they pass the check untouched and a lane reads them as
 * `unknown`, checking the shape it needs (see control-plane.ts, community-response.ts).
 */
export type ServiceFields = { readonly [key: `__${string}`]: unknown };

/** What a lane of task type T is handed: the payload as that type's schema describes it, already checked. */
export type LanePayload<T extends PayloadTaskType> = TaskPayload<T> & ServiceFields;

/** A lane: a function of its payload and context, answering one JSON-serializable object. */
export type Lane<P> = (payload: P, context: LaneContext) => Promise<Record<string, unknown>> | Record<string, unknown>;

/**
 * A lane bound to its task type. `run` takes the payload as the worker read it from its file,
 * checks it against the type's schema and runs the lane only when it passes.
 */
export interface WorkerLane {
  readonly taskType: PayloadTaskType;
  run(payload: Record<string, unknown>, context: LaneContext): Promise<Record<string, unknown>>;
}

/** The answer to a payload its task type's schema refuses: the lane never ran. */
export type PayloadRefusal = LaneRefusal & {
  taskType: PayloadTaskType;
  /** One entry per problem, paths as JSON pointers into the payload (`/scope`, `/changes/0/path`). */
  problems: ErrorDetail[];
};

export function refusePayload(taskType: PayloadTaskType, problems: ErrorDetail[]): PayloadRefusal {
  const reason = `payload refused: ${problems.map((p) => `${p.path} ${p.message}`).join('; ')}`;
  const refusal = refuseLane(
    { role: `${taskType} lane`, workflowStage: 'payload check', deliverable: 'nothing: the payload was refused before the lane ran' },
    reason,
    [`Resend the task with a payload that matches the ${taskType} payload schema (GET /api/tasks/catalog publishes it).`],
  );
  return { ...refusal, taskType, problems };
}

/**
 * Binds a lane to its task type. The lane's payload type is inferred from that type's schema, and
 * the lane is only ever called with a payload that passed the schema check admission applies
 * (same checker, same messages), so it reads its fields without re-checking types, required
 * fields, enum values or limits. What a schema cannot say (one field depending on another, a path
 * that must exist inside a folder) stays the lane's to check.
 *
 * The check neither fills in defaults nor converts: the lane gets the very object from the
 * payload file, `__` fields included.
 */
export function defineLane<T extends PayloadTaskType>(taskType: T, lane: Lane<LanePayload<T>>): WorkerLane {
  return {
    taskType,
    async run(payload, context) {
      const problems = payloadProblems(taskType, payload);
      if (problems.length > 0) return refusePayload(taskType, problems);
      return lane(payload as LanePayload<T>, context);
    },
  };
}

/**
 * Picks the lane of an agent that serves several task types, from the payload as read and the
 * environment (the service names the type in ORCHESTRATOR_TASK_TYPE).
 */
export type LaneRouter = (payload: Readonly<Record<string, unknown>>, env: NodeJS.ProcessEnv) => WorkerLane;
