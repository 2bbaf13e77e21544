import { collectScopeValues } from '../workspace/boundary.js';
import type { CatalogEntry } from './catalog.js';
import type { RunRecord } from '../domain/run-record.js';

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

/**
 * Community leads routed through an approval by nightly-batch say which kind of approval they
 * are: a manual-review lead must be decided before it can be drafted; a promotion is optional.
 */
const LEAD_REVIEW: Record<string, { reason: string; caveat: string }> = {
  'manual-review': {
    reason: 'manual-review community lead: drafting needs explicit approval',
    caveat: 'Mandatory review: the lead is not drafted unless approved.',
  },
  promotion: {
    reason: 'optional promotion of a top-10 draft lead into community-response',
    caveat: 'Optional: rejecting leaves the lead undrafted; nothing is posted either way, drafts wait for a human.',
  },
};

/** What an operator needs to judge a held run before deciding. */
export function approvalImpact(run: RunRecord, entry: CatalogEntry): ApprovalImpact {
  const review = entry.type === 'community-response' ? LEAD_REVIEW[String(run.payload.reviewReason)] : undefined;
  const surfaces = new Set<string>();
  for (const field of entry.scopeFields) {
    for (const { value } of collectScopeValues(field, run.payload)) surfaces.add(`workspace:${value}`);
  }
  if (entry.type === 'agent-deploy') surfaces.add('deployments');
  if (entry.agentId) surfaces.add(`agent:${entry.agentId}`);
  return {
    riskLevel: HIGH_RISK_TYPES.has(entry.type) ? 'high' : entry.dependencyClass === 'external' ? 'medium' : 'low',
    approvalReason: review ? `${review.reason} (${run.approval.reason ?? 'approval required'})` : (run.approval.reason ?? 'approval required'),
    dependencyClass: entry.dependencyClass,
    affectedSurfaces: [...surfaces],
    dependencyRequirements: entry.dependencyRequirements,
    caveats: review ? [review.caveat, ...entry.caveats] : entry.caveats,
  };
}

/** Keys of the payload without the service's own `__` keys, which are only counted. */
export function payloadPreview(payload: Record<string, unknown>): PayloadPreview {
  const all = Object.keys(payload);
  const keys = all.filter((k) => !k.startsWith('__'));
  return { keyCount: keys.length, keys, internalKeyCount: all.length - keys.length };
}
