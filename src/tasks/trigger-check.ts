import { DomainError } from '../domain/errors.js';
import { checkPayloadPathLimits, checkPayloadScopes } from '../workspace/boundary.js';
import { checkTaskRequest, type CheckedTaskRequest, type TaskRequest } from './payload-validation.js';

export type TriggerCheck = (request: TaskRequest) => CheckedTaskRequest;

/**
 * What every client-shaped task request passes before admission (the trigger route, incident
 * remediation): the catalog and the type's payload schema, then the workspace boundary of its
 * scope fields.
 */
export function createTriggerCheck(workspaceRoot: string): TriggerCheck {
  return (request) => {
    const checked = checkTaskRequest(request);
    const tooLong = checkPayloadPathLimits(checked.entry, checked.payload);
    if (tooLong.length > 0) throw new DomainError('invalid_request', 'a path is longer than the file system allows', tooLong);
    const scopeProblems = checkPayloadScopes(checked.entry, checked.payload, workspaceRoot);
    if (scopeProblems.length > 0) {
      throw new DomainError('scope_outside_workspace', 'task scope is outside the workspace', scopeProblems);
    }
    return checked;
  };
}
