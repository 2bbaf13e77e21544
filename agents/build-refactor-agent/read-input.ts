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
export const MAX_FILES_CHANGED_LIMIT = 50;
export const MAX_CHANGES = 50;
/** `constraints.runTests: true` without a testRunner verifies with the project's `test` script. */
export const DEFAULT_TEST_SCRIPT = 'test';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function optionalText(value: unknown, field: string): string | null | { problem: string } {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') return { problem: `payload.${field} must be a string` };
  return value.trim() === '' ? null : value.trim();
}

function readChange(value: unknown, index: number): ChangeRequest | { problem: string } {
  const where = `payload.changes[${index}]`;
  if (!isRecord(value)) return { problem: `${where} must be an object` };
  const { path } = value;
  if (typeof path !== 'string' || path.trim() === '') return { problem: `${where}.path must be a non-empty string` };
  const keys = Object.keys(value).filter((key) => key !== 'path').sort().join(',');
  if (keys === 'replace,search') {
    if (typeof value.search !== 'string' || value.search === '') return { problem: `${where}.search must be a non-empty string` };
    if (typeof value.replace !== 'string') return { problem: `${where}.replace must be a string` };
    return { kind: 'edit', path, search: value.search, replace: value.replace };
  }
  if (keys === 'content') {
    if (typeof value.content !== 'string') return { problem: `${where}.content must be a string` };
    return { kind: 'write', path, content: value.content };
  }
  if (keys === 'delete') {
    if (value.delete !== true) return { problem: `${where}.delete must be true` };
    return { kind: 'delete', path };
  }
  return { problem: `${where} must be {path, search, replace}, {path, content} or {path, delete: true}` };
}

function readMaxFiles(constraints: Record<string, unknown>): number | { problem: string } {
  const value = constraints.maxFilesChanged;
  if (value === undefined || value === null) return DEFAULT_MAX_FILES_CHANGED;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_FILES_CHANGED_LIMIT) {
    return { problem: `payload.constraints.maxFilesChanged must be an integer from 1 to ${MAX_FILES_CHANGED_LIMIT}` };
  }
  return value;
}

function readVerifyScript(payload: Readonly<Record<string, unknown>>, runTests: unknown): string | null | { problem: string } {
  const { testRunner } = payload;
  if (testRunner !== undefined && testRunner !== null) {
    if (!isRecord(testRunner) || typeof testRunner.script !== 'string' || testRunner.script.trim() === '') {
      return { problem: 'payload.testRunner.script must name an npm script of the target project' };
    }
    return testRunner.script.trim();
  }
  if (runTests !== undefined && typeof runTests !== 'boolean') return { problem: 'payload.constraints.runTests must be a boolean' };
  return runTests === true ? DEFAULT_TEST_SCRIPT : null;
}

/** Reads the payload, or names the first thing wrong with it. */
export function readInput(payload: Readonly<Record<string, unknown>>): BuildRefactorInput | { problem: string } {
  const { scope, constraints = {}, changes } = payload;
  if (typeof scope !== 'string' || scope.trim() === '') return { problem: 'payload.scope must name a folder or file of the workspace' };
  const changeType = optionalText(payload.type, 'type');
  if (changeType !== null && typeof changeType === 'object') return changeType;
  const intent = optionalText(payload.intent, 'intent');
  if (intent !== null && typeof intent === 'object') return intent;
  if (!isRecord(constraints)) return { problem: 'payload.constraints must be an object' };
  const maxFilesChanged = readMaxFiles(constraints);
  if (typeof maxFilesChanged === 'object') return maxFilesChanged;
  const verifyScript = readVerifyScript(payload, constraints.runTests);
  if (verifyScript !== null && typeof verifyScript === 'object') return verifyScript;

  let requests: ChangeRequest[] | null = null;
  if (changes !== undefined && changes !== null) {
    if (!Array.isArray(changes)) return { problem: 'payload.changes must be an array' };
    if (changes.length > MAX_CHANGES) return { problem: `payload.changes holds ${changes.length} changes; at most ${MAX_CHANGES} are accepted` };
    requests = [];
    for (const [index, value] of changes.entries()) {
      const change = readChange(value, index);
      if ('problem' in change) return change;
      requests.push(change);
    }
  }
  return { changeType, scope: scope.trim(), intent, maxFilesChanged, verifyScript, changes: requests };
}
