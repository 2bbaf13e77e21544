import type { ErrorDetail } from '../domain/errors.js';
import type { CatalogEntry } from '../task-types/task-type.js';
import { pathLimitProblem, resolveWorkspacePath, shortened, WorkspaceBoundaryError } from '../common/workspace-path.js';

// The path rules live in src/common/ because worker processes resolve scopes by them too; the
// service's importers keep reaching them through this module, the workspace's door.
export { MAX_NAME_BYTES, MAX_PATH_BYTES, pathLimitProblem, resolveWorkspacePath, WorkspaceBoundaryError } from '../common/workspace-path.js';

/**
 * Every string under one scope selector of a payload, with its JSON Pointer. Selectors are field
 * names, `a.b` for a nested field and `a[].b` for a field of every element of array `a`; a string
 * array at the end of a selector yields each element.
 */
export function collectScopeValues(selector: string, payload: Record<string, unknown>): Array<{ path: string; value: string }> {
  let nodes: Array<{ path: string; value: unknown }> = [{ path: '/body/payload', value: payload }];
  for (const segment of selector.split('.')) {
    const each = segment.endsWith('[]');
    const key = each ? segment.slice(0, -2) : segment;
    const next: Array<{ path: string; value: unknown }> = [];
    for (const node of nodes) {
      if (typeof node.value !== 'object' || node.value === null || Array.isArray(node.value)) continue;
      const child = (node.value as Record<string, unknown>)[key];
      const childPath = `${node.path}/${key}`;
      if (each) {
        if (Array.isArray(child)) child.forEach((item, i) => next.push({ path: `${childPath}/${i}`, value: item }));
      } else if (child !== undefined) {
        next.push({ path: childPath, value: child });
      }
    }
    nodes = next;
  }
  const values: Array<{ path: string; value: string }> = [];
  for (const node of nodes) {
    if (typeof node.value === 'string') values.push({ path: node.path, value: node.value });
    else if (Array.isArray(node.value)) {
      node.value.forEach((item, i) => {
        if (typeof item === 'string') values.push({ path: `${node.path}/${i}`, value: item });
      });
    }
  }
  return values;
}

/** One detail per scope value of the payload that no file system can hold (over its limits). */
export function checkPayloadPathLimits(entry: CatalogEntry, payload: Record<string, unknown>): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  for (const selector of entry.scopeFields) {
    for (const { path, value } of collectScopeValues(selector, payload)) {
      const problem = pathLimitProblem(value);
      if (problem) details.push({ path, message: `path ${JSON.stringify(shortened(value))} ${problem}` });
    }
  }
  return details;
}

/**
 * One detail per scope value of the payload that leaves the workspace (or that no file system can
 * hold). Values of the wrong type are left to schema validation, which reports them better.
 */
export function checkPayloadScopes(
  entry: CatalogEntry,
  payload: Record<string, unknown>,
  workspaceRoot: string,
): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  for (const selector of entry.scopeFields) {
    for (const { path, value } of collectScopeValues(selector, payload)) {
      try {
        resolveWorkspacePath(workspaceRoot, value);
      } catch (err) {
        if (!(err instanceof WorkspaceBoundaryError)) throw err;
        details.push({ path, message: err.message });
      }
    }
  }
  return details;
}
