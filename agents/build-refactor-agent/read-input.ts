import type { LanePayload } from '../../src/worker-sdk/lane-definition.js';

export type BuildRefactorPayload = LanePayload<'build-refactor'>;

/** One explicit change of the payload, as the lane applies it. */
export type ChangeRequest =
  | { kind: 'edit'; path: string; search: string; replace: string }
  | { kind: 'write'; path: string; content: string }
  | { kind: 'delete'; path: string };

/** The build-refactor payload once read and bounded. */
export interface BuildRefactorInput {
  changeType: string | null;
  scope: string;
  intent: string | null;
  maxFilesChanged: number;
  /** The npm script to verify with, or null when no verification was asked for. */
  verifyScript: string | null;
  /** Null when the payload has no changes[] at all (an intent-only request). */
  changes: ChangeRequest[] | null;
}

export const DEFAULT_MAX_FILES_CHANGED = 10;
/** `constraints.runTests: true` without a testRunner verifies with the project's `test` script. */
export const DEFAULT_TEST_SCRIPT = 'test';

type Change = NonNullable<BuildRefactorPayload['changes']>[number];

/** One change of the payload in the form the lane applies; the schema admits exactly these three shapes. */
function changeRequestOf(change: Change): ChangeRequest {
  if ('search' in change) return { kind: 'edit', path: change.path, search: change.search, replace: change.replace };
  if ('content' in change) return { kind: 'write', path: change.path, content: change.content };
  return { kind: 'delete', path: change.path };
}

/** A free-text field: trimmed, and null when absent or blank. */
function optionalText(value: string | undefined): string | null {
  const trimmed = value?.trim() ?? '';
  return trimmed === '' ? null : trimmed;
}

/**
 * The payload in the form the lane works with, its defaults applied. The worker SDK has already
 * checked it against the build-refactor schema (scope present, at most 50 changes of the three
 * shapes, maxFilesChanged 1–50, a whitelisted script name), so nothing here can be refused.
 */
export function readInput(payload: BuildRefactorPayload): BuildRefactorInput {
  const { constraints = {}, testRunner, changes } = payload;
  const verifyScript = testRunner !== undefined ? testRunner.script : constraints.runTests === true ? DEFAULT_TEST_SCRIPT : null;
  return {
    changeType: optionalText(payload.type),
    scope: payload.scope.trim(),
    intent: optionalText(payload.intent),
    maxFilesChanged: constraints.maxFilesChanged ?? DEFAULT_MAX_FILES_CHANGED,
    verifyScript,
    changes: changes === undefined ? null : changes.map(changeRequestOf),
  };
}
