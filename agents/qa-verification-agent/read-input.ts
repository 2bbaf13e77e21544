import type { LanePayload } from '../../src/worker-sdk/lane-definition.js';
import { DEFAULT_SUITE } from './plan.js';

export type QaPayload = LanePayload<'qa-verification'>;
export type QaMode = NonNullable<QaPayload['mode']>;

/** Used when the payload names no timeout; the schema bounds a named one to 1 s – 540 s (below the agent's 600 s worker timeout). */
export const DEFAULT_TIMEOUT_MS = 120_000;

export interface QaInput {
  target: string;
  suite: string;
  mode: QaMode;
  timeoutMs: number;
}

/**
 * The payload with its defaults applied. The worker SDK has checked it against the
 * qa-verification schema (target present, suite a plain word, a known mode, a bounded timeout).
 * An absent `mode` plans only: running a project's scripts is the step an operator asks for
 * explicitly.
 */
export function readQaInput(payload: QaPayload): QaInput {
  return {
    target: payload.target.trim(),
    suite: payload.suite ?? DEFAULT_SUITE,
    mode: payload.mode ?? 'dry-run',
    timeoutMs: payload.timeoutMs ?? DEFAULT_TIMEOUT_MS,
  };
}
