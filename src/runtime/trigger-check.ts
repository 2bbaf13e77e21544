import { DomainError, invalidRequest } from '../domain/errors.js';
import { checkPayloadPathLimits, checkPayloadScopes } from '../workspace/boundary.js';
import type { LaneRegistry } from './lanes.js';
import { checkTaskRequest, type CheckedTaskRequest, type TaskRequest } from './payload-validation.js';

export type TriggerCheck = (request: TaskRequest) => CheckedTaskRequest;

/**
 * What every client-shaped task request passes before admission (the trigger route, schedules
 * when written and when they fire, reruns, incident remediation): the catalog and the type's
 * payload schema, then the workspace boundary of its scope fields, then the lane's own admission
 * check (`lanes`: the registry whose `admissionCheck` hooks it calls).
 */
export function createTriggerCheck(workspaceRoot: string, lanes?: Pick<LaneRegistry, 'get'>): TriggerCheck {
  return (request) => {
    const checked = checkTaskRequest(request);
    const tooLong = checkPayloadPathLimits(checked.entry, checked.payload);
    if (tooLong.length > 0) throw new DomainError('invalid_request', 'a path is longer than the file system allows', tooLong);
    const scopeProblems = checkPayloadScopes(checked.entry, checked.payload, workspaceRoot);
    if (scopeProblems.length > 0) {
      throw new DomainError('scope_outside_workspace', 'task scope is outside the workspace', scopeProblems);
    }
    // A run that can only fail (its lane's setting is missing, its template is not there) is
    // refused here rather than queued, held for approval, or retried to its last attempt.
    const cannotRun = lanes?.get(checked.type).admissionCheck?.(checked.payload) ?? [];
    if (cannotRun.length > 0) throw invalidRequest(`${checked.type} cannot run: ${cannotRun.map((p) => p.message).join('; ')}`, cannotRun);
    return checked;
  };
}
