import { DEFAULT_SUITE, isSuiteName } from './plan.js';

export const QA_MODES = ['dry-run', 'execute'] as const;
export type QaMode = (typeof QA_MODES)[number];

export const DEFAULT_TIMEOUT_MS = 120_000;
export const MIN_TIMEOUT_MS = 1_000;
/** Below the agent's own 600 s worker timeout, so the lane still answers when a suite hangs. */
export const MAX_TIMEOUT_MS = 540_000;

export interface QaInput {
  target: string;
  suite: string;
  mode: QaMode;
  timeoutMs: number;
}

/**
 * The payload in typed form, or the problem with it. An absent `mode` plans only: running a
 * project's scripts is the step an operator asks for explicitly.
 */
export function readQaInput(payload: Readonly<Record<string, unknown>>): QaInput | { problem: string } {
  const { target, suite, mode, timeoutMs } = payload;
  if (typeof target !== 'string' || target.trim() === '') {
    return { problem: 'payload.target must name the project folder (workspace-relative) that holds package.json' };
  }
  if (suite !== undefined && (typeof suite !== 'string' || !isSuiteName(suite))) {
    return { problem: `payload.suite ${JSON.stringify(suite)} is not a suite name (letters, digits, ".", "_", "-"; up to 64)` };
  }
  if (mode !== undefined && !QA_MODES.includes(mode as QaMode)) {
    return { problem: `unknown mode ${JSON.stringify(mode)}: use ${QA_MODES.join(' or ')}` };
  }
  if (
    timeoutMs !== undefined &&
    (typeof timeoutMs !== 'number' || !Number.isInteger(timeoutMs) || timeoutMs < MIN_TIMEOUT_MS || timeoutMs > MAX_TIMEOUT_MS)
  ) {
    return { problem: `payload.timeoutMs must be an integer from ${MIN_TIMEOUT_MS} to ${MAX_TIMEOUT_MS}` };
  }
  return {
    target: target.trim(),
    suite: (suite as string | undefined) ?? DEFAULT_SUITE,
    mode: (mode as QaMode | undefined) ?? 'dry-run',
    timeoutMs: (timeoutMs as number | undefined) ?? DEFAULT_TIMEOUT_MS,
  };
}
