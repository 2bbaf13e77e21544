/*
 * The API records the console reads, taken from the service's own modules as types only (no
 * service code reaches the bundle). Each module named here is free of Node APIs, so the
 * console's browser-only tsconfig compiles it.
 */
import type { RunView } from '../../../src/runtime/run-view.js';
import type { RunListEnvelope } from '../../../src/runtime/run-list-answer.js';
import type { RunLogsAnswer } from '../../../src/runlogs/run-log-answer.js';
import type { RunEndData, RunEventData } from '../../../src/events/run-event-data.js';
import type { RunLogLine } from '../../../src/domain/run-log-line.js';
import type { TriggerAnswer } from '../../../src/runtime/trigger-answer.js';
import type { QueueAttempt, RunEvent, RunStatus } from '../../../src/domain/run-record.js';

export type { RunView, RunLogsAnswer, RunEventData, RunEndData, RunLogLine, TriggerAnswer, QueueAttempt, RunEvent, RunStatus };

/**
 * One item of GET /api/tasks/runs: the run view, and for a ready run the limit that holds it back
 * (a limit bucket's name, `type:<type>`, or null: docs/queue.md). Optional: a row the live feed
 * changed keeps the value read with its page.
 */
export type RunListItem = RunView & { heldBy?: string | null };

/** GET /api/tasks/runs: the envelope from its schema, the items as the run view builds them. */
export type RunListAnswer = RunListEnvelope & { items: RunListItem[] };

/** Every run status, in the order the console lists them (the service's RUN_STATUSES, as a type). */
export const RUN_STATUS_LIST: readonly RunStatus[] = ['waiting', 'pending', 'running', 'retrying', 'success', 'failed', 'cancelled', 'skipped'];
