import { DomainError, type ErrorDetail } from '../../domain/errors.js';
import type { HandlerOutcome } from '../../runtime/handler-types.js';

/** An expected failure: the run fails with this reason instead of the handler throwing. */
export function failure(error: string): HandlerOutcome {
  return { status: 'error', error };
}

/**
 * A setting the handler needs is missing or unusable (`problem` names it, as the lane's admission
 * check does). Thrown, it fails the run at once with the problem's message: `invalid_config` is
 * a refusal, which a retry cannot change (like a scope refusal), so no attempt follows.
 */
export function configurationRefusal(problem: ErrorDetail): DomainError {
  return new DomainError('invalid_config', problem.message, [problem]);
}
