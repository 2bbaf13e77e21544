import type { AgentRegistry, RegisteredAgent } from '../../src/agents/registry.js';

/**
 * A registered worker-first agent `id` owning `lanes`, as the registry would list it from
 * agents/<id>/agent.config.json with a built entrypoint; any field overridden.
 */
export function registeredAgent(id: string, lanes: string[], overrides: Partial<RegisteredAgent> = {}): RegisteredAgent {
  return {
    id,
    name: id,
    description: id,
    lanes,
    lifecycleMode: 'worker-first',
    serviceExpected: false,
    serviceUnitName: null,
    entrypoint: 'index.js',
    orchestratorStatePath: null,
    serviceStatePath: null,
    allowedSkills: [],
    model: { tier: 'local', provider: null, name: null },
    directory: `/agents/${id}`,
    manifestPath: `/agents/${id}/agent.config.json`,
    soulPath: null,
    entrypointPath: `/dist/agents/${id}/index.js`,
    entrypointMissingReason: null,
    ...overrides,
  };
}

/** An agent registry over `agents`: lookup by id, and by lane for the agent that owns it. */
export function agentRegistry(agents: RegisteredAgent[]): AgentRegistry {
  return {
    list: () => [...agents],
    get: (id) => agents.find((a) => a.id === id),
    forLane: (lane) => agents.find((a) => a.lanes.includes(lane)),
  };
}
