import type { Static, TSchema } from 'typebox';
import { BUILT_IN_REGISTRY, taskTypes, type BUILT_IN_TASK_TYPES } from './built-in.js';

/**
 * The payload contract of every built-in task type, read from the type modules. The trigger
 * route validates with them, the catalog route publishes them, and the worker SDK checks the
 * payload again with the same checker and hands the lane its static type. Worker processes load
 * this module: the type modules import only TypeBox and the schema kit.
 */

export { IDEMPOTENCY_KEY_PATTERN, WORK_CHAIN_ID_PATTERN } from '../task-types/schema-kit.js';

type BuiltInType = (typeof BUILT_IN_TASK_TYPES)[number];

/** A task type that has a payload schema: every built-in type. */
export type PayloadTaskType = BuiltInType['type'];

/** The payload of a task type as its schema describes it (what a lane may rely on once checked). */
export type TaskPayload<T extends PayloadTaskType> = Static<Extract<BuiltInType, { type: T }>['payloadSchema']>;

export function isPayloadTaskType(type: string): type is PayloadTaskType {
  return BUILT_IN_REGISTRY.has(type);
}

/** The payload schema of a type of the running service (built-in, or one it was composed with). */
export function getPayloadSchema(type: string): TSchema | undefined {
  return taskTypes().get(type)?.payloadSchema;
}

/** Every built-in type's payload schema by type name. */
export const PAYLOAD_SCHEMAS: Readonly<Record<PayloadTaskType, TSchema>> = Object.freeze(
  Object.fromEntries(BUILT_IN_REGISTRY.all().map((t) => [t.type, t.payloadSchema])) as Record<PayloadTaskType, TSchema>,
);
