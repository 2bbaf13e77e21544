import type { AgentRegistry } from '../agents/registry.js';
import type { LlmConfig } from '../config/types.js';
import { taskTypes } from '../lanes/built-in.js';

/**
 * Whether a lane's input is security-sensitive (audit findings, files matched as secrets,
 * compliance evidence): nothing it reads is sent to a provider, whatever its manifest says. Each
 * type module says so itself (`model.keepsContentLocal`).
 */
export function keepsContentLocal(lane: string): boolean {
  return taskTypes().get(lane)?.model.keepsContentLocal ?? false;
}

export type LaneModel = { model: string; tier: string } | { model: null; reason: 'lane-not-allowed' | 'no-model'; detail: string };

/**
 * Picks the model of a lane: its agent's manifest names a tier (`local` means none) and
 * optionally a model name that overrides the tier's; `llm.models` maps a tier to a name. A
 * request may ask for another tier, or for a name the configuration already lists (a worker cannot
 * name an arbitrary, possibly costlier model).
 */
export function laneModel(
  registry: Pick<AgentRegistry, 'forLane'>,
  config: Pick<LlmConfig, 'models'>,
  lane: string,
  asked: { tier?: string; name?: string } = {},
): LaneModel {
  if (keepsContentLocal(lane)) {
    return { model: null, reason: 'lane-not-allowed', detail: `${lane} is security-sensitive: nothing it reads is sent to a provider` };
  }
  const agent = registry.forLane(lane);
  if (!agent) return { model: null, reason: 'lane-not-allowed', detail: `no agent serves ${lane}` };
  if (agent.model.tier === 'local') {
    return { model: null, reason: 'lane-not-allowed', detail: `${agent.id} runs locally (manifest model.tier "local")` };
  }
  const configured = new Set(Object.values(config.models));
  if (asked.name !== undefined) {
    if (asked.name === agent.model.name || configured.has(asked.name)) return { model: asked.name, tier: asked.tier ?? agent.model.tier };
    return { model: null, reason: 'no-model', detail: `model ${JSON.stringify(asked.name)} is neither the manifest's nor a configured one` };
  }
  const tier = asked.tier ?? agent.model.tier;
  const model = asked.tier === undefined && agent.model.name ? agent.model.name : config.models[tier];
  if (!model) return { model: null, reason: 'no-model', detail: `no model configured for tier ${tier} (llm.models.${tier})` };
  return { model, tier };
}

/** What the agents overview shows: the tier and the model it resolves to now (null: local or unconfigured). */
export function agentModelName(agent: { lanes: string[]; model: { tier: string; name: string | null } }, config: Pick<LlmConfig, 'models'>): string | null {
  if (agent.model.tier === 'local' || agent.lanes.some((lane) => keepsContentLocal(lane))) return null;
  return agent.model.name ?? config.models[agent.model.tier] ?? null;
}
