import type { Logger } from 'pino';
import type { AgentRegistry } from '../agents/registry.js';
import type { Clock } from '../clock.js';
import type { LlmConfig } from '../config/types.js';
import type { Coordination } from '../coordination/types.js';
import type { StateStore } from '../store/types.js';
import { createModelChannel } from './channel.js';
import { createDailyBudget } from './daily-budget.js';
import { createModelGateway } from './gateway.js';
import { laneModel } from './lane-policy.js';
import { createProviderClient, type ProviderClient } from './provider-client.js';

export { MODEL_CHANNEL_PAYLOAD_KEY, type ModelChannel, type ModelChannelInput } from './channel.js';
export { agentModelName, keepsContentLocal } from './lane-policy.js';
export type { ChatMessage, CompletionAnswer, CompletionRequest, ModelGateway } from './types.js';

/** A provider is configured when a key or a base URL (a local server needs no key) is set. */
export const providerConfigured = (config: Pick<LlmConfig, 'apiKey' | 'baseUrl'>) => config.apiKey !== null || config.baseUrl !== null;

/**
 * The models module: the provider client, the shared daily budget, the gateway every model call
 * goes through, and the loopback channel that brings the gateway to spawned workers.
 */
export function createModels(deps: {
  config: LlmConfig;
  store: Pick<StateStore, 'getRun' | 'mutateRun'>;
  coordination: Pick<Coordination, 'spendDailyBudget'>;
  clock: Clock;
  logger: Logger;
  registry: Pick<AgentRegistry, 'forLane'>;
  /** The service's secrets; an answer carrying one is withheld. */
  secrets: readonly string[];
  /** Tests substitute the client; by default the `openai` one when a provider is configured. */
  provider?: ProviderClient | null;
  /** A lane's worker timeout: part of it bounds the attempt's model calls (channel.ts). */
  attemptTimeoutMs?: (lane: string) => number | null;
}) {
  const { config } = deps;
  const budget = createDailyBudget({ coordination: deps.coordination, clock: deps.clock, limitUsd: config.dailyBudgetUsd });
  const provider = deps.provider !== undefined ? deps.provider : providerConfigured(config) ? createProviderClient(config) : null;
  const gateway = createModelGateway({
    config,
    store: deps.store,
    registry: deps.registry,
    clock: deps.clock,
    logger: deps.logger,
    budget,
    provider,
    secrets: [...deps.secrets, ...(config.apiKey ? [config.apiKey] : [])],
  });
  const channel = createModelChannel({
    gateway,
    logger: deps.logger,
    ports: config.channelPorts ?? null,
    ...(deps.attemptTimeoutMs ? { attemptTimeoutMs: deps.attemptTimeoutMs } : {}),
    unavailable: (lane) => {
      if (!provider) return { reason: 'no-provider', detail: 'no model provider is configured (OPENAI_API_KEY or OPENAI_BASE_URL)' };
      const picked = laneModel(deps.registry, config, lane);
      return picked.model === null ? { reason: picked.reason, detail: picked.detail } : null;
    },
  });
  return { gateway, channel, budget, configured: provider !== null };
}

export type Models = ReturnType<typeof createModels>;
