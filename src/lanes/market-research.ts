import type { AppConfig } from '../config/types.js';
import type { LaneDefinition } from '../runtime/lanes.js';
import { marketResearchType } from './market-research/definition.js';

/**
 * market-research on the service side: the operator's reach policy rides with the payload, since
 * the worker cannot read the configuration; the lane refuses every host outside it before any
 * request.
 */
export function marketResearchLane(policy: AppConfig['marketResearch']): LaneDefinition {
  const { allowPrivateHosts, allowedDomains } = policy;
  const reach = Object.freeze({ allowPrivateHosts, ...(allowedDomains ? { allowedDomains: [...allowedDomains] } : {}) });
  return { type: marketResearchType.type, workerInput: () => ({ __marketResearch: reach }) };
}
