import type { Debounce } from './debounce.js';
import { DomainError, invalidRequest, pointer, pointerSegment, type ErrorDetail } from '../domain/errors.js';
import { reservedRunIdRefusal } from '../domain/service-run-ids.js';
import { getCatalogEntry, type CatalogEntry } from './catalog.js';
import { hasPayloadSchema, payloadProblems } from '../lanes/payload-check.js';

/** A task request as the trigger route hands it over: its body shape is already checked. */
export interface TaskRequest {
  type: string;
  payload?: Record<string, unknown>;
  /** Queue placement (src/runtime/placement-schema.ts); the route schema checked its bounds. */
  concurrencyKey?: string;
  priority?: number;
  /** Run tags (src/runtime/tags-schema.ts); the route schema checked them. */
  tags?: string[];
  /** Debounce (src/runtime/debounce.ts); the route schema checked its shape. */
  debounce?: Debounce;
}

/** A request that passed every check, with its catalog entry. */
export interface CheckedTaskRequest {
  type: string;
  payload: Record<string, unknown>;
  entry: CatalogEntry;
}

/** Where a payload sits in a trigger request, for error paths. */
const PAYLOAD_PATH = pointer('body', 'payload');

/**
 * Fields the service sets on its own runs. A client that could send them could make a task look
 * approved or replayed, so they are refused rather than silently dropped.
 */
export const RESERVED_PAYLOAD_FIELDS = [
  'approvedFromTaskId',
  'approvalDecisionId',
  'approvalId',
  'approvedBy',
  'approved',
  'decidedBy',
] as const;

/** Schema problems of a payload for a known task type (empty when valid). Paths start at `/body/payload`. */
export function validatePayload(type: string, payload: Record<string, unknown>): ErrorDetail[] {
  if (!hasPayloadSchema(type)) return [{ path: pointer('body', 'type'), message: `unknown task type '${type}'` }];
  return payloadProblems(type, payload, PAYLOAD_PATH);
}

function reservedFieldDetails(payload: Record<string, unknown>): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  for (const key of Object.keys(payload)) {
    if (key.startsWith('__')) {
      details.push({ path: `${PAYLOAD_PATH}/${pointerSegment(key)}`, message: 'fields starting with __ are reserved for the service' });
    } else if ((RESERVED_PAYLOAD_FIELDS as readonly string[]).includes(key)) {
      details.push({
        path: `${PAYLOAD_PATH}/${pointerSegment(key)}`,
        message: 'approval linkage is set by the service, never by a client',
      });
    }
  }
  const refusal = reservedKeyRefusal(payload);
  if (refusal !== null) details.push({ path: `${PAYLOAD_PATH}/idempotencyKey`, message: refusal });
  return details;
}

/** Why the payload's idempotency key (the run id to be) is the service's to use, or null. */
function reservedKeyRefusal(payload: Record<string, unknown>): string | null {
  const key = payload.idempotencyKey;
  return typeof key === 'string' ? reservedRunIdRefusal(key) : null;
}

/**
 * Checks a task request against the catalog and the type's payload schema. The route schema has
 * already checked the body's shape ({type: non-empty string, payload?: object}); this is the one
 * place that knows task types. Order matters for the error a client sees: the type (unknown
 * before internal), then reserved fields, then the schema. Pure: no I/O; the workspace boundary
 * of scope fields is checked separately (src/workspace/boundary.ts).
 */
export function checkTaskRequest(request: TaskRequest): CheckedTaskRequest {
  const { type } = request;
  const payload = request.payload ?? {};
  const typePath = pointer('body', 'type');
  const entry = getCatalogEntry(type);
  if (!entry) {
    throw invalidRequest(`unknown task type '${type}'`, [
      { path: typePath, message: 'is not a task type of the catalog (GET /api/tasks/catalog lists them)' },
    ]);
  }
  if (entry.internalOnly) {
    throw new DomainError('task_type_internal', `task type '${type}' is internal-only and cannot be triggered`, [
      { path: typePath, message: 'is an internal-only task type' },
    ]);
  }
  const reserved = reservedFieldDetails(payload);
  if (reserved.length > 0) {
    // A reserved idempotency key is named in the message itself: the prefix is the whole answer.
    const keyRefusal = reservedKeyRefusal(payload);
    const message = keyRefusal === null ? 'payload carries fields reserved for the service' : `payload.idempotencyKey ${keyRefusal}`;
    throw new DomainError('reserved_field', message, reserved);
  }
  const problems = validatePayload(type, payload);
  if (problems.length > 0) throw invalidRequest(`payload is not valid for task type '${type}'`, problems);
  return { type, payload, entry };
}
