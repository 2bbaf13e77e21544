import { collectScopeValues } from '../workspace/boundary.js';
import type { CatalogEntry } from './catalog.js';
import type { RunRecord } from './types.js';

/** Types whose work changes code, deployments or outside systems: high risk when approved. */
const HIGH_RISK_TYPES = new Set(['build-refactor', 'agent-deploy', 'deployment-ops', 'send-digest', 'community-response']);

export interface ApprovalImpact {
  riskLevel: 'high' | 'medium' | 'low';
  approvalReason: string;
  dependencyClass: CatalogEntry['dependencyClass'];
  affectedSurfaces: string[];
  dependencyRequirements: string[];
  caveats: string[];
}

export interface PayloadPreview {
  keyCount: number;
  keys: string[];
  internalKeyCount: number;
}

/** What an operator needs to judge a held run before deciding. */
export function approvalImpact(run: RunRecord, entry: CatalogEntry): ApprovalImpact {
  const surfaces = new Set<string>();
  for (const field of entry.scopeFields) {
    for (const { value } of collectScopeValues(field, run.payload)) surfaces.add(`workspace:${value}`);
  }
  if (entry.type === 'agent-deploy') surfaces.add('deployments');
  if (entry.agentId) surfaces.add(`agent:${entry.agentId}`);
  return {
    riskLevel: HIGH_RISK_TYPES.has(entry.type) ? 'high' : entry.dependencyClass === 'external' ? 'medium' : 'low',
    approvalReason: run.approval.reason ?? 'approval required',
    dependencyClass: entry.dependencyClass,
    affectedSurfaces: [...surfaces],
    dependencyRequirements: entry.dependencyRequirements,
    caveats: entry.caveats,
  };
}

/** Keys of the payload without the service's own `__` keys, which are only counted. */
export function payloadPreview(payload: Record<string, unknown>): PayloadPreview {
  const all = Object.keys(payload);
  const keys = all.filter((k) => !k.startsWith('__'));
  return { keyCount: keys.length, keys, internalKeyCount: all.length - keys.length };
}
