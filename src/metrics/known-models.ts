import type { LlmConfig } from '../config/types.js';
import { agentModelName } from '../models/index.js';

/**
 * The models the service may call, as far as its configuration says: the tiers' models, the
 * priced ones and those agent manifests name. The model metrics count any other model a request
 * names under `other`.
 */
export function knownModels(llm: Pick<LlmConfig, 'models' | 'prices'>, agents: ReadonlyArray<{ lanes: string[]; model: { tier: string; name: string | null } }>): string[] {
  const names = new Set([...Object.values(llm.models), ...Object.keys(llm.prices)]);
  for (const agent of agents) {
    const name = agentModelName(agent, llm);
    if (name !== null) names.add(name);
  }
  return [...names].sort();
}
