import { normalize } from 'node:path';
import { readWorkspaceFile } from '../../src/worker-sdk/workspace-file.js';
import type { ChangeRequest } from './read-input.js';
import { resolveChangePath, type ChangeScope, type ScopedPath } from './scope.js';

export type FileAction = 'edited' | 'created' | 'deleted';

/** One file of a validated change set: what it holds now and what it will hold. */
export interface PlannedFile extends ScopedPath {
  /** The current bytes, kept so a rollback restores them exactly; null when the file is new. */
  before: Buffer | null;
  /** Permission bits of the current file, carried over to its new content. */
  mode: number | null;
  /** The new bytes; null when the file is deleted. */
  after: Buffer | null;
  action: FileAction;
}

export interface ChangePlan {
  files: PlannedFile[];
  /** Files the change set names whose content ends up exactly as it was; they are not written. */
  unchanged: string[];
}

/** Bounds what the lane reads into memory: source files, not data dumps. */
export const MAX_FILE_BYTES = 5 * 1024 * 1024;

interface FileState {
  path: ScopedPath;
  before: Buffer | null;
  mode: number | null;
  current: Buffer | null;
  broken: boolean;
}

/** Non-overlapping occurrences of `search` in `text`. */
export function countOccurrences(text: string, search: string): number {
  let count = 0;
  for (let at = text.indexOf(search); at !== -1; at = text.indexOf(search, at + search.length)) count += 1;
  return count;
}

/** The file as it is now, read through the workspace opener (no link followed, no hard link read). */
function readState(workspaceRoot: string, path: ScopedPath): FileState | { problem: string } {
  const read = readWorkspaceFile(workspaceRoot, path.relative, { maxBytes: MAX_FILE_BYTES });
  if (!read.ok) {
    if (read.problem === 'missing') return { path, before: null, mode: null, current: null, broken: false };
    if (read.problem === 'too-large') return { problem: `${path.relative} is ${read.size} bytes; the lane changes files up to ${MAX_FILE_BYTES} bytes` };
    return { problem: `${read.message}; it is neither read nor changed` };
  }
  return { path, before: read.content, mode: read.mode & 0o7777, current: read.content, broken: false };
}

/** The file's text for a search edit; only UTF-8 text that decodes without loss is edited. */
function textOf(state: FileState): string | null {
  if (state.current === null) return null;
  const text = state.current.toString('utf8');
  if (text.includes('\0') || !Buffer.from(text, 'utf8').equals(state.current)) return null;
  return text;
}

/**
 * Applies one change to the in-memory state of its file. A search edit must match exactly once:
 * a text found twice is ambiguous (which one did the requester mean?) and fails the change set
 * rather than guessing. Matching is exact (no whitespace or line-ending folding) and the
 * replacement is inserted literally (`$&` and friends mean nothing here).
 */
function applyChange(state: FileState, change: ChangeRequest, label: string): string | null {
  const where = `${label} (${state.path.relative})`;
  if (change.kind === 'write') {
    state.current = Buffer.from(change.content, 'utf8');
    return null;
  }
  if (change.kind === 'delete') {
    if (state.current === null) return `${where}: cannot delete a file that does not exist`;
    state.current = null;
    return null;
  }
  if (state.current === null) return `${where}: cannot search a file that does not exist`;
  const text = textOf(state);
  if (text === null) return `${where}: the file is not UTF-8 text, so it cannot be edited by search and replace`;
  const found = countOccurrences(text, change.search);
  if (found === 0) return `${where}: search text not found`;
  if (found > 1) return `${where}: search text found ${found} times; it must match exactly once (include more surrounding text)`;
  const at = text.indexOf(change.search);
  state.current = Buffer.from(text.slice(0, at) + change.replace + text.slice(at + change.search.length), 'utf8');
  return null;
}

function actionOf(before: Buffer | null, after: Buffer | null): FileAction {
  if (before === null) return 'created';
  return after === null ? 'deleted' : 'edited';
}

/**
 * Validates a whole change set and computes every new file content in memory, touching nothing
 * on disk. Every problem is reported, not only the first, so one round trip fixes the request.
 * Changes to the same file apply in payload order, each to the result of the one before.
 */
export function planChanges(
  workspaceRoot: string,
  scope: ChangeScope,
  changes: ChangeRequest[],
  maxFilesChanged: number,
): ChangePlan | { problems: string[] } {
  const problems: string[] = [];
  const states = new Map<string, FileState>();
  const targets: Array<{ change: ChangeRequest; label: string; key: string }> = [];
  changes.forEach((change, index) => {
    const label = `changes[${index}]`;
    const path = resolveChangePath(workspaceRoot, scope, change.path);
    if ('problem' in path) {
      problems.push(`${label}: ${path.problem}`);
      return;
    }
    targets.push({ change, label, key: path.absolute });
    if (states.has(path.absolute)) return;
    const state = readState(workspaceRoot, path);
    if ('problem' in state) {
      problems.push(`${label}: ${state.problem}`);
      return;
    }
    states.set(path.absolute, state);
  });

  // Counted over every path named, valid or not, so the bound holds whatever else is wrong.
  const distinct = new Set(changes.map((change) => normalize(change.path))).size;
  if (distinct > maxFilesChanged) {
    problems.unshift(`the change set touches ${distinct} files; constraints.maxFilesChanged allows ${maxFilesChanged}`);
  }

  for (const { change, label, key } of targets) {
    const state = states.get(key);
    if (state === undefined || state.broken) continue;
    const problem = applyChange(state, change, label);
    if (problem !== null) {
      problems.push(problem);
      state.broken = true;
    }
  }
  if (problems.length > 0) return { problems };

  const files: PlannedFile[] = [];
  const unchanged: string[] = [];
  for (const state of states.values()) {
    const same = state.before === null ? state.current === null : state.current !== null && state.before.equals(state.current);
    if (same) {
      unchanged.push(state.path.relative);
      continue;
    }
    files.push({ ...state.path, before: state.before, mode: state.mode, after: state.current, action: actionOf(state.before, state.current) });
  }
  if (files.length === 0) return { problems: ['the change set leaves every file exactly as it is; there is nothing to apply'] };
  return { files, unchanged };
}
