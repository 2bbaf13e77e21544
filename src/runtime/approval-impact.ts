import { collectScopeValues } from '../workspace/boundary.js';
import type { CatalogEntry } from './catalog.js';
import type { LaneRegistry } from './lanes.js';
import type { RunRecord } from '../domain/run-record.js';

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

/**
 * What an operator needs to judge a held run before deciding: read from its catalog entry and
 * payload, then refined by the lane's own `approvalImpact` hook where it registered one.
 */
export function approvalImpact(run: RunRecord, entry: CatalogEntry, lanes: LaneRegistry): ApprovalImpact {
  const surfaces = new Set<string>();
  for (const field of entry.scopeFields) {
    for (const { value } of collectScopeValues(field, run.payload)) surfaces.add(`workspace:${value}`);
  }
  for (const surface of entry.affectedSurfaces) surfaces.add(surface);
  if (entry.agentId) surfaces.add(`agent:${entry.agentId}`);
  const impact: ApprovalImpact = {
    riskLevel: entry.highRiskWhenApproved ? 'high' : entry.dependencyClass === 'external' ? 'medium' : 'low',
    approvalReason: run.approval.reason ?? 'approval required',
    dependencyClass: entry.dependencyClass,
    affectedSurfaces: [...surfaces],
    dependencyRequirements: entry.dependencyRequirements,
    caveats: entry.caveats,
  };
  const refine = lanes.get(run.type).approvalImpact;
  return refine ? refine(run, impact) : impact;
}

/** Keys of the payload without the service's own `__` keys, which are only counted. */
export function payloadPreview(payload: Record<string, unknown>): PayloadPreview {
  const all = Object.keys(payload);
  const keys = all.filter((k) => !k.startsWith('__'));
  return { keyCount: keys.length, keys, internalKeyCount: all.length - keys.length };
}
